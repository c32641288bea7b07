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

const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;

/** A duration for people: `0.2 s`, `12.3 s`, `30m 05s`, `4h 10m 54s`. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  const two = (v: number): string => String(v).padStart(2, '0');
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}h ${two(m)}m ${two(s % 60)}s` : `${m}m ${two(s % 60)}s`;
}

function toolTable(report: ReplayReport): string[] {
  const nameWidth = Math.max(4, ...report.tools.map((t) => t.name.length));
  const head = sub(`${'tool'.padEnd(nameWidth)}  calls  errors  error rate  pending`);
  const lines = report.tools.map((t) =>
    sub(
      `${t.name.padEnd(nameWidth)}  ${n(t.calls).padStart(5)}  ${n(t.errors).padStart(6)}  ${percent(t.errorRate).padStart(10)}  ${n(t.pending).padStart(7)}`,
    ),
  );
  return [head, ...lines];
}

function planLines(report: ReplayReport): string[] {
  const task = report.task;
  if (!task.hasPlan) return [row('plan', 'none (no TodoWrite call)')];
  const head = row(
    'plan',
    `${task.completed}/${task.total} completed (${task.progressPercent}%), ${task.inProgress} in progress, ${task.pending} pending` +
      (task.updatedAt === null ? '' : `, updated ${task.updatedAt}`),
  );
  const blocking = task.blocking.length === 0 ? 'nothing blocks it' : `blocking: ${task.blocking.map((t) => `"${clip(t.content, 40)}"`).join(', ')}`;
  return [head, ...task.todos.map((t) => sub(`${MARK[t.status]} ${clip(t.content, 72)}`)), sub(blocking)];
}

function windowLines(report: ReplayReport): string[] {
  const width = Math.max(...report.windows.map((w) => w.slice.length));
  const kept = Math.max(...report.windows.map((w) => n(w.size).length));
  const lines = report.windows.map((w, i) => {
    const text = `${w.slice.padEnd(width)}  ${n(w.size).padStart(kept)} kept, ${n(w.evicted)} evicted  ${w.window}`;
    return i === 0 ? row('windows', text) : sub(text);
  });
  const earlier = report.earlierTranscripts;
  // The logs go on across the transcripts of one session: what they keep is the whole run's.
  if (earlier > 0) lines.push(sub(`kept: the whole run's (this transcript and the ${n(earlier)} before it); evicted: during this transcript`));
  return lines;
}

function notificationLines(report: ReplayReport): string[] {
  const { failedCalls, delivered, abandoned, inFlight } = report.notifications;
  const head = row(
    'notify',
    failedCalls === 0
      ? 'nothing to notify (no failed tool call)'
      : `${n(failedCalls)} failed ${failedCalls === 1 ? 'call' : 'calls'}: ${n(delivered.length)} delivered, ${n(abandoned.length)} compensated` +
          (inFlight > 0 ? `, ${n(inFlight)} in flight` : ''),
  );
  const settled = [...delivered, ...abandoned].sort((a, b) => (a.failedAt ?? '').localeCompare(b.failedAt ?? ''));
  const lines = settled.map((rec) => {
    const what = `${rec.toolUseId.slice(0, 14)}… ${rec.tool}: ${clip(rec.error.replace(/\\n/g, ' '), 36)}`;
    if (rec.status === 'abandoned') return sub(`[compensated after ${rec.attempts} attempts] ${what}`);
    const failedMs = rec.failedAt === null ? Number.NaN : Date.parse(rec.failedAt);
    const late = rec.attempts > 1 && rec.deliveredAtMs !== null && !Number.isNaN(failedMs) ? `, +${formatDuration(rec.deliveredAtMs - failedMs)}` : '';
    return sub(`[delivered, attempt ${rec.attempts}${late}] ${what}`);
  });
  return [head, ...lines];
}

function phaseLines(report: ReplayReport): string[] {
  const { msIn, spanMs, turns, current } = report.phases;
  if (report.phases.firstMs === null) return [row('phases', 'no timestamp in the transcript')];
  const head = row(
    'phases',
    `${formatDuration(spanMs)} from the first to the last timestamp, ${n(turns)} ${turns === 1 ? 'prompt' : 'prompts'}; ` +
      (report.phases.subagent ? `a subagent's transcript; ${current === 'responding' ? 'ends with its answer (responding)' : `ends in ${current}`}` : `ends in ${current}`),
  );
  const all = (Object.keys(msIn) as (keyof typeof msIn)[]).sort((a, b) => msIn[b] - msIn[a]);
  const phases = all.filter((p) => msIn[p] > 0);
  const width = Math.max(...phases.map((p) => p.length));
  const times = phases.map((p) => formatDuration(msIn[p]));
  const timeWidth = Math.max(...times.map((t) => t.length));
  const lines = phases.map((p, i) =>
    sub(`${p.padEnd(width)}  ${(times[i] as string).padStart(timeWidth)}  ${(spanMs === 0 ? '-' : percent(msIn[p] / spanMs)).padStart(6)}`),
  );
  const never = all.filter((p) => msIn[p] === 0);
  if (never.length > 0) lines.push(sub(`no time in: ${never.join(', ')}`));
  return [head, ...lines];
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
  if (report.earlierTranscripts > 0) {
    out.push(row('run', `transcript ${n(report.earlierTranscripts + 1)} of one session; figures are this transcript's own unless marked "whole run"`));
  }
  out.push(row('lines', `${n(report.lines)} read, ${n(report.skippedLines)} gave no event`));
  if (report.events > 0) out.push(row('events', `${n(report.events)} dispatched, by type:`), ...counts(report.eventsByType));
  else out.push(row('events', `none${report.lines > 0 ? ' (not a Claude Code transcript?)' : ''}`));
  if (report.skipped.size === 0) out.push(row('skipped', 'nothing'));
  else out.push(row('skipped', 'by reason:'), ...counts(report.skipped));
  out.push(row('tool calls', `${n(toolCalls.total)} (${n(toolCalls.errors)} errors, ${n(toolCalls.pending)} without result)`));
  if (report.tools.length > 0) out.push(...toolTable(report));
  const nested = report.subagentCalls;
  if (nested.calls > 0 || nested.errors > 0) {
    const byTool = [...nested.tools].sort((a, b) => b.calls - a.calls).map((t) => `${t.name} ${n(t.calls)}`);
    out.push(sub(`+ ${n(nested.calls)} subagent ${nested.calls === 1 ? 'call' : 'calls'} in agent_progress lines (${n(nested.errors)} errors)${byTool.length > 0 ? `: ${byTool.join(', ')}` : ''}`));
  }
  out.push(...planLines(report));
  out.push(
    row(
      'tokens',
      `input ${n(tokens.input)} · output ${n(tokens.output)} · cache creation ${n(tokens.cacheCreation)} · cache read ${n(tokens.cacheRead)}`,
    ),
    sub(
      `total ${n(tokens.total)}; ${n(tokens.responses)} API ${tokens.responses === 1 ? 'response' : 'responses'}, each counted once with the usage of its last line`,
    ),
  );
  out.push(...windowLines(report), ...notificationLines(report), ...phaseLines(report));
  if (report.events === 0) return [...out, row('throughput', 'n/a (no event replayed)')].join('\n');
  out.push(
    row('throughput', `${n(Math.round(timing.eventsPerSecond))} events/s (replay only, parse excluded)`),
    sub(
      `dispatch with validation 'always', effects and statechart: ${n(report.events)} events in ${ms(timing.replayMs)}; parse: ${ms(timing.parseMs)}`,
    ),
  );
  return out.join('\n');
}
