/** What the runner collects per workload × contender over the rounds, and its summary. */
import type { WorkerOutcome } from './worker-process';
import { median } from './stats';

/** All outcomes of one contender on one workload. */
export class Cell {
  readonly values: number[] = [];
  readonly extras: Record<string, number[]> = {};
  unavailable: string | undefined;
  failed: string | undefined;
  timedOut: { done: number; total: number; elapsedMs: number } | undefined;

  /** Records one worker outcome. */
  add(outcome: WorkerOutcome): void {
    switch (outcome.kind) {
      case 'ok':
        this.values.push(outcome.value);
        for (const [key, v] of Object.entries(outcome.extra)) (this.extras[key] ??= []).push(v);
        break;
      case 'unavailable':
        this.unavailable = outcome.reason;
        break;
      case 'timed-out':
        this.timedOut = { done: outcome.done, total: outcome.total, elapsedMs: outcome.elapsedMs };
        break;
      case 'failed':
        this.failed = outcome.error;
        break;
    }
  }

  /** True once the cell should not be run again (it cannot run, failed, or passed the deadline). */
  get settled(): boolean {
    return this.unavailable !== undefined || this.failed !== undefined || this.timedOut !== undefined;
  }

  /** Median of the headline values over the rounds (NaN when none). */
  get median(): number {
    return this.failed === undefined && this.timedOut === undefined ? median(this.values) : Number.NaN;
  }

  /** Median of one extra number over the rounds. */
  extra(key: string): number {
    return median(this.extras[key] ?? []);
  }
}

/** Results by workload id, then contender key. */
export class Results {
  private readonly cells = new Map<string, Map<string, Cell>>();

  /** The cell of `workload` × `contender` (created empty on first use). */
  cell(workload: string, contender: string): Cell {
    let byContender = this.cells.get(workload);
    if (byContender === undefined) this.cells.set(workload, (byContender = new Map()));
    let cell = byContender.get(contender);
    if (cell === undefined) byContender.set(contender, (cell = new Cell()));
    return cell;
  }

  /** The median of a cell, or NaN when it has no value. */
  median(workload: string, contender: string): number {
    return this.cells.get(workload)?.get(contender)?.median ?? Number.NaN;
  }

  /** Every failed cell, as `workload/contender: error`. */
  failures(): string[] {
    const out: string[] = [];
    for (const [w, byContender] of this.cells) {
      for (const [c, cell] of byContender) if (cell.failed !== undefined) out.push(`${w}/${c}: ${cell.failed}`);
    }
    return out;
  }
}
