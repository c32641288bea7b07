/**
 * Formats a replay report as compact, aligned text for the terminal.
 */
import type { Todo } from './events';
import type { ReplayReport } from './replay';

const LABEL = 13;
const INDENT = ' '.repeat(2 + LABEL);

const n = (value: number): string => value.toLocaleString('en-US');
const ms = (value: number): string => `${value.toFixed(1)} ms`;

const row = (label: string, text: string): string => `  ${label.padEnd(LABEL)}${text}`;
const sub = (text: string): string => `${INDENT}${text}`;

const MARK: Readonly<Record<Todo['status'], string>> = { completed: '[x]', in_progress: '[~]', pending: '[ ]' };

const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** Count/name lines, right-aligned counts: `  1697  transcript/progressReported`. */
function counts(map: ReadonlyMap<string, number>): string[] {
  const width = Math.max(...[...map.values()].map((v) => n(v).length));
  return [...map].map(([key, value]) => sub(`${n(value).padStart(width)}  ${key}`));
}

function toolTable(report: ReplayReport): string[] {
  const nameWidth = Math.max(4, ...report.tools.map((t) => t.name.length));
  const head = sub(`${'tool'.padEnd(nameWidth)}  calls  errors  pending`);
  const lines = report.tools.map((t) =>
    sub(`${t.name.padEnd(nameWidth)}  ${n(t.calls).padStart(5)}  ${n(t.errors).padStart(6)}  ${n(t.pending).padStart(7)}`),
  );
  return [head, ...lines];
}

function planLines(report: ReplayReport): string[] {
  const plan = report.plan;
  if (plan === undefined) return [row('plan', 'none (no TodoWrite call)')];
  const total = plan.todos.length;
  const percent = total === 0 ? 0 : Math.round((plan.completed / total) * 100);
  const head = row(
    'plan',
    `${plan.completed}/${total} completed (${percent}%), ${plan.inProgress} in progress, ${plan.pending} pending` +
      (plan.updatedAt === null ? '' : `, updated ${plan.updatedAt}`),
  );
  return [head, ...plan.todos.map((t) => sub(`${MARK[t.status]} ${clip(t.content, 72)}`))];
}

/**
 * Renders one replay report as aligned text (no trailing newline), for `main.ts`.
 *
 * @remarks Pure. Numbers use thousands separators; maps keep the report's order (by count).
 * The throughput line says what was timed: the dispatch loop only, parsing excluded.
 * @example
 * ```ts
 * console.log(formatReport(replayTranscript(lines, { source: 'a.jsonl' })));
 * // a.jsonl
 * //   lines        15 read, 0 gave no event
 * //   ...
 * ```
 */
export function formatReport(report: ReplayReport): string {
  const { tokens, timing, toolCalls } = report;
  const out: string[] = [report.source];
  out.push(row('lines', `${n(report.lines)} read, ${n(report.skippedLines)} gave no event`));
  if (report.events > 0) out.push(row('events', `${n(report.events)} dispatched, by type:`), ...counts(report.eventsByType));
  else out.push(row('events', `none${report.lines > 0 ? ' (not a Claude Code transcript?)' : ''}`));
  if (report.skipped.size === 0) out.push(row('skipped', 'nothing'));
  else out.push(row('skipped', 'by reason:'), ...counts(report.skipped));
  out.push(row('tool calls', `${n(toolCalls.total)} (${n(toolCalls.errors)} errors, ${n(toolCalls.pending)} without result)`));
  if (report.tools.length > 0) out.push(...toolTable(report));
  out.push(...planLines(report));
  out.push(
    row(
      'tokens',
      `input ${n(tokens.input)} · output ${n(tokens.output)} · cache creation ${n(tokens.cacheCreation)} · cache read ${n(tokens.cacheRead)}`,
    ),
    sub(`${n(tokens.responses)} API ${tokens.responses === 1 ? 'response' : 'responses'}, each counted once with the usage of its last line`),
  );
  if (report.events === 0) return [...out, row('throughput', 'n/a (no event replayed)')].join('\n');
  out.push(
    row('throughput', `${n(Math.round(timing.eventsPerSecond))} events/s (replay only, parse excluded)`),
    sub(`dispatch with validation 'always': ${n(report.events)} events in ${ms(timing.replayMs)}; parse: ${ms(timing.parseMs)}`),
  );
  return out.join('\n');
}
