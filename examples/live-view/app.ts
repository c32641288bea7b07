/// <reference lib="dom" />
/**
 * The live view: a React page that replays a bundled Claude Code transcript through a transcript
 * session in the browser and shows it as it happens — messages, tool calls with their status,
 * token usage, and the agent-phase statechart with its available transitions (buttons that
 * dispatch). Every panel reads the session through `rxslice/react` hooks, and counts its renders
 * (`window.liveView.renders`) beside the changes of what it reads (`window.liveView.changes`), so
 * the browser test can check that no panel renders more often than its inputs changed.
 *
 * Built by `build.ts` (esbuild), served by `serve.ts` (`npm run example:live-view`).
 */
import { createElement as h, useEffect, useState, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import type { Observable } from 'rxjs';
import { isRxSliceError, type Event } from '../../src/index';
import { SessionProvider, useComputed, useDispatch, useMachine, useSession, useSlice } from '../../src/react/index';
import { TranscriptClock, TranscriptTime, timestampOf } from '../../src/transcripts/clock';
import { TokenSummary, ToolCallTotals } from '../../src/transcripts/computed';
import { SystemMessageAdded, ToolCalled, UserMessageAdded } from '../../src/transcripts/events';
import { parseTranscript, splitLines } from '../../src/transcripts/parse';
import { AgentPhases, PHASES } from '../../src/transcripts/phases';
import { createTranscriptSession, type TranscriptSession } from '../../src/transcripts/replay';
import { Messages, ToolCalls } from '../../src/transcripts/slices';

/** What the page exposes for the browser test. */
interface LiveView {
  /** Renders per panel. */
  readonly renders: Record<string, number>;
  /** Changes of each panel's input (emissions after the first), counted beside React. */
  readonly changes: Record<string, number>;
  /** Events the replay dispatched and committed, and those the session rejected. */
  dispatched: number;
  rejected: number;
  done: boolean;
}
const live: LiveView = { renders: {}, changes: {}, dispatched: 0, rejected: 0, done: false };
(globalThis as { liveView?: LiveView }).liveView = live;

const rendered = (panel: string): void => void (live.renders[panel] = (live.renders[panel] ?? 0) + 1);
function countChanges(panel: string, value$: Observable<unknown>): void {
  let first = true;
  live.changes[panel] = 0;
  value$.subscribe(() => {
    if (first) first = false;
    else live.changes[panel] = (live.changes[panel] ?? 0) + 1;
  });
}

const n = (value: number): string => value.toLocaleString('en-US');
const panel = (id: string, title: string, ...children: ReactNode[]) => h('section', { id, className: 'panel' }, h('h2', null, title), ...children);

function MessagesPanel() {
  rendered('messages');
  const messages = useSlice(Messages);
  return panel(
    'messages',
    `Messages (${n(messages.length)})`,
    h('ol', null, ...messages.slice(-12).map((m) => h('li', { key: m.uuid, className: m.role }, h('b', null, m.role), ' ', m.text.slice(0, 140)))),
  );
}

function ToolCallsPanel() {
  rendered('toolCalls');
  const calls = useSlice(ToolCalls);
  return panel(
    'tool-calls',
    `Tool calls (${n(calls.length)} kept)`,
    h('table', null, h('tbody', null, ...calls.slice(-15).map((c) => h('tr', { key: c.toolUseId, className: c.status }, h('td', null, c.name), h('td', { className: 'summary' }, c.summary), h('td', { className: 'status' }, c.status))))),
  );
}

function TotalsPanel() {
  rendered('totals');
  const totals = useComputed(ToolCallTotals);
  return panel(
    'totals',
    'Tool call totals',
    h('p', null, h('span', { id: 'calls-total' }, n(totals.total)), ' calls, ', h('span', { id: 'calls-errors' }, n(totals.errors)), ' errors, ', h('span', { id: 'calls-pending' }, n(totals.pending)), ' without result'),
  );
}

function TokensPanel() {
  rendered('tokens');
  const t = useComputed(TokenSummary);
  const cell = (id: string, label: string, value: number) => h('tr', null, h('th', null, label), h('td', { id }, n(value)));
  return panel(
    'tokens',
    'Token usage',
    h('table', null, h('tbody', null, cell('tokens-input', 'input', t.input), cell('tokens-output', 'output', t.output), cell('tokens-cache-creation', 'cache creation', t.cacheCreation), cell('tokens-cache-read', 'cache read', t.cacheRead), cell('tokens-total', 'total', t.total), cell('tokens-responses', 'API responses', t.responses))),
  );
}

/** Events a user of the page can send to the machine, one per transition event type it can build. */
function userEvents(clockMs: number | null): Record<string, { readonly label: string; readonly event: Event }> {
  const timestamp = new Date((clockMs ?? Date.now()) + 1_000).toISOString();
  return {
    'transcript/userMessageAdded': {
      label: 'send a prompt',
      event: UserMessageAdded({ uuid: `live-${timestamp}`, timestamp, text: 'Please go on.', isMeta: false, isSidechain: false, isCompactSummary: false }),
    },
    'transcript/toolCalled': {
      label: 'call a tool',
      event: ToolCalled({ toolUseId: `live-${timestamp}`, name: 'Bash', input: { command: 'ls' }, messageId: `live-${timestamp}`, timestamp }),
    },
    'transcript/systemMessageAdded': {
      label: 'end the turn',
      event: SystemMessageAdded({ subtype: 'turn_duration', content: null, level: null, timestamp }),
    },
  };
}

function PhasePanel() {
  rendered('phase');
  const phase = useMachine(AgentPhases);
  const dispatch = useDispatch<TranscriptSession>();
  // The transcript's clock (the latest timestamp) stamps the buttons' events. Read, not subscribed
  // to: the panel renders for the statechart's changes only, and every commit that moves the
  // statechart is rendered with the time of that moment.
  const events = userEvents(useSession<TranscriptSession>().slice(TranscriptTime).latest()?.lastMs ?? 0);
  const available = phase.availableTransitions().filter((t) => t.event !== '*');
  const states = ['transcript', 'working', ...PHASES];
  return panel(
    'phase',
    'Agent phase',
    h('ul', { id: 'chart' }, ...states.map((id) => h('li', { key: id, 'data-state': id, className: phase.matches(id as never) ? 'state active' : 'state' }, id))),
    h(
      'ul',
      { id: 'transitions' },
      ...available.map((t) => {
        const user = events[t.event];
        const enabled = user !== undefined && phase.can(user.event as never);
        const targets = t.transitions.flatMap((x) => x.targets).join(', ') || '(stays)';
        return h(
          'li',
          { key: t.event },
          h('code', null, t.event),
          ` → ${targets} `,
          user === undefined ? null : h('button', { 'data-event': t.event, disabled: !enabled, onClick: () => dispatch(user.event) }, user.label),
        );
      }),
    ),
  );
}

/** Replays the transcript one event per tick (as the demo does: the clock moved to each event's timestamp), then settles the clock. */
function Replay({ session, lines, delayMs }: { session: TranscriptSession; lines: readonly string[]; delayMs: number }) {
  const [progress, setProgress] = useState({ done: 0, total: 0 });
  useEffect(() => {
    const { events } = parseTranscript(lines);
    const clock = session.scheduler instanceof TranscriptClock ? session.scheduler : undefined;
    let i = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const step = () => {
      const event = events[i++];
      if (event === undefined) {
        clock?.finish();
        live.done = true;
        setProgress({ done: events.length, total: events.length });
        return;
      }
      const at = timestampOf(event);
      if (at !== undefined) clock?.advanceTo(at);
      try {
        session.dispatch(event);
        live.dispatched++;
      } catch (error) {
        if (!isRxSliceError(error)) throw error;
        live.rejected++;
      }
      setProgress({ done: i, total: events.length });
      timer = setTimeout(step, delayMs);
    };
    step();
    return () => clearTimeout(timer);
  }, [session, lines, delayMs]);
  const finished = progress.total > 0 && progress.done === progress.total;
  return h('p', { id: 'progress', 'data-done': String(finished) }, finished ? `replayed ${n(live.dispatched)} events` : `replaying ${progress.done} / ${progress.total}`);
}

async function main(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const transcript = params.get('transcript') ?? 'spotter-tool_heavy.jsonl';
  const delayMs = Number(params.get('delayMs') ?? '15');
  const text = await (await fetch(`data/${encodeURIComponent(transcript)}`)).text();
  const session = createTranscriptSession();
  countChanges('messages', session.slice(Messages).all$);
  countChanges('toolCalls', session.slice(ToolCalls).all$);
  countChanges('totals', session.computed(ToolCallTotals).value$);
  countChanges('tokens', session.computed(TokenSummary).value$);
  countChanges('phase', session.machine(AgentPhases).current$);
  const root = document.getElementById('root') as HTMLElement;
  document.title = `${transcript} - rxslice live view`;
  createRoot(root).render(
    h(
      SessionProvider,
      { session },
      h('header', null, h('h1', null, transcript), h(Replay, { session, lines: splitLines(text), delayMs })),
      h('main', null, h(PhasePanel), h(TotalsPanel), h(TokensPanel), h(ToolCallsPanel), h(MessagesPanel)),
    ),
  );
}

void main();
