/**
 * The live terminal view of `rxslice watch`: one row per active session, redrawn in place (ANSI
 * cursor movement) at most every `refreshMs`, with notices printed above the table.
 */
import { formatDuration } from '../transcripts/report';
import type { SessionStatus } from './session-status';

/** Where the view writes: a terminal. */
export interface LiveViewOutput {
  write(text: string): unknown;
  readonly columns?: number;
}

const HEADER = ['session', 'phase', 'tools', 'failed', 'tokens', 'last activity'] as const;
const n = (value: number): string => value.toLocaleString('en-US');

/** "12s ago", "3m 4s ago", "-" (nothing applied in this run yet). */
function ago(ms: number | null, nowMs: number): string {
  if (ms === null) return '-';
  return `${formatDuration(Math.max(0, nowMs - ms))} ago`;
}

/**
 * The table's lines for `statuses` at `nowMs` (wall clock, ms): a header and one row per
 * session, columns padded to their widest cell, each line cut to `columns` characters. Extra
 * `alerts` (e.g. budget alerts) are appended to their session's row.
 * @example
 * ```ts
 * renderTable([status], Date.now(), 80);
 * // ['session  phase      tools  failed  tokens  last activity', 'abc      executing  12     1       48,210  3s ago']
 * ```
 */
export function renderTable(statuses: readonly SessionStatus[], nowMs: number, columns = 120, alerts: ReadonlyMap<string, string> = new Map()): string[] {
  const rows = statuses.map((s) => [s.parent === null ? s.label : `  ${s.label}`, s.phase, n(s.toolCalls), n(s.errors), n(s.tokens), ago(s.lastActivityMs, nowMs)]);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  const lines = [line(HEADER), ...rows.map((r, i) => line(r) + (alerts.has(statuses[i]!.label) ? `  ! ${alerts.get(statuses[i]!.label)!}` : ''))];
  return lines.map((l) => (l.length > columns ? `${l.slice(0, Math.max(0, columns - 1))}…` : l));
}

/** Options of {@link LiveView}. */
export interface LiveViewOptions {
  /** The shortest time between two redraws (ms). Default 200. */
  readonly refreshMs?: number;
  /** Sessions without a line for longer than this are left out (ms). Default 30 minutes. */
  readonly activeMs?: number;
  /** The wall clock (ms). Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * Draws the table on a terminal and redraws it in place: the previous table is erased (cursor
 * up, erase to the end of the screen) and the new one written. Subagent rows are indented under
 * their parent. A redraw asked for within `refreshMs` of the last one is deferred (one timer);
 * the "last activity" column is refreshed every second while the view is open.
 * @example
 * ```ts
 * const view = new LiveView(process.stdout, () => watched.map(sessionStatus));
 * view.update(); // after each update of a session
 * view.notice('abc: watching /p/abc.jsonl'); // printed above the table
 * view.close();
 * ```
 */
export class LiveView {
  private drawn = 0;
  private lastDraw = -Infinity;
  private pending: ReturnType<typeof setTimeout> | undefined;
  private readonly ticker: ReturnType<typeof setInterval>;
  private readonly refreshMs: number;
  private readonly activeMs: number;
  private readonly now: () => number;
  /** The progress line under the table (see {@link progress}). */
  private progressLine: string | undefined;

  constructor(
    private readonly out: LiveViewOutput,
    private readonly statuses: () => readonly SessionStatus[],
    private readonly alerts: () => ReadonlyMap<string, string> = () => new Map(),
    options: LiveViewOptions = {},
  ) {
    this.refreshMs = options.refreshMs ?? 200;
    this.activeMs = options.activeMs ?? 30 * 60_000;
    this.now = options.now ?? Date.now;
    this.ticker = setInterval(() => this.draw(), 1000);
    this.ticker.unref();
  }

  /** Asks for a redraw (now, or once `refreshMs` has passed since the last one). */
  update(): void {
    const wait = this.lastDraw + this.refreshMs - this.now();
    if (wait <= 0) return this.draw();
    this.pending ??= setTimeout(() => {
      this.pending = undefined;
      this.draw();
    }, wait);
  }

  /** Prints `message` above the table and redraws the table under it. */
  notice(message: string): void {
    this.erase();
    this.out.write(`${message}\n`);
    this.draw();
  }

  /**
   * Shows `line` under the table (redrawn with it, in place) until it is replaced, or removed
   * with `undefined`; redraws as {@link update} does.
   * @example
   * ```ts
   * view.progress('catching up: 12 of 200 files, 35.2 of 301.0 MB'); // under the table
   * view.progress(undefined);                                          // gone at the next redraw
   * ```
   */
  progress(line: string | undefined): void {
    this.progressLine = line;
    this.update();
  }

  /** Redraws the table now. */
  draw(): void {
    this.lastDraw = this.now();
    const now = this.lastDraw;
    const active = this.statuses()
      .filter((s) => !s.closed && (s.lastActivityMs === null || now - s.lastActivityMs <= this.activeMs))
      .sort((a, b) => (a.parent ?? a.label).localeCompare(b.parent ?? b.label) || (a.parent === null ? -1 : 0) - (b.parent === null ? -1 : 0) || a.label.localeCompare(b.label));
    const lines = renderTable(active, now, this.out.columns ?? 120, this.alerts());
    if (this.progressLine !== undefined) lines.push(this.progressLine);
    this.erase();
    this.out.write(`${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }

  private erase(): void {
    if (this.drawn > 0) this.out.write(`\x1b[${this.drawn}A\x1b[J`);
    this.drawn = 0;
  }

  /** Stops the timers; the last table stays on the screen. */
  close(): void {
    clearInterval(this.ticker);
    if (this.pending !== undefined) clearTimeout(this.pending);
    this.pending = undefined;
  }
}
