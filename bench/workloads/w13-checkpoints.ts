/**
 * Workload 13g — checkpoint storage growth: 1,000 steps of one thread, each appending one ~2 KB
 * message to a partial-update state. Time per step, and bytes stored divided by the messages'
 * own bytes. rxslice: `createCheckpointer` (deltas, a full record once deltas outweigh 8 copies
 * of the state) on memory storage. Plain loop: what a saver storing the full state at every step
 * stores (LangGraph's MemorySaver and its SQL savers write the whole channel values per
 * checkpoint): JSON of the state after each step, kept in an array.
 */
import { z } from 'zod';
import { add, createCheckpointer, defineState, field } from '../../src/index';
import { check, measure, nowMs, type Impl, type RunResult } from '../lib/measure';
import type { Workload } from './workload';

/** Steps per timed run. */
export const CHECKPOINT_STEPS = 1_000;

const Message = z.object({ role: z.string(), text: z.string() });
const Thread = defineState('thread', { messages: field(z.array(Message), { reducer: add, default: [] }), step: field(z.number(), { default: 0 }) });
const message = (i: number) => ({ role: i % 2 === 0 ? 'user' : 'assistant', text: `${i}:${'lorem ipsum '.repeat(170)}` });

function messageBytes(steps: number): number {
  let bytes = 0;
  for (let i = 0; i < steps; i++) bytes += JSON.stringify(message(i)).length;
  return bytes;
}

function rxsliceRun(ops: number): RunResult {
  const t0 = nowMs();
  const cp = createCheckpointer({ state: Thread });
  for (let i = 0; i < ops; i++) cp.put('t', [{ messages: [message(i)], step: i }]);
  const ms = nowMs() - t0;
  const ratio = cp.bytes() / messageBytes(ops);
  check(cp.latest('t')?.values.messages.length === ops, 'messages in the last checkpoint');
  return { ms, extra: { ratio } };
}

function fullCopyRun(ops: number): RunResult {
  const t0 = nowMs();
  const stored: string[] = [];
  let state: { messages: { role: string; text: string }[]; step: number } = { messages: [], step: 0 };
  let bytes = 0;
  for (let i = 0; i < ops; i++) {
    state = { messages: [...state.messages, message(i)], step: i };
    const json = JSON.stringify(state);
    stored.push(json);
    bytes += json.length + 1;
  }
  const ms = nowMs() - t0;
  check(stored.length === ops, 'checkpoints stored');
  return { ms, extra: { ratio: bytes / messageBytes(ops) } };
}

const impl = (run: (ops: number) => RunResult): Impl => () => measure({ ops: CHECKPOINT_STEPS, warmupOps: 100 }, run);

export const checkpointGrowthWorkload: Workload = {
  id: 'checkpoint-growth',
  number: '13g',
  title: 'Checkpoint storage: 1,000 steps, each appending one ~2 KB message (one thread)',
  unit: 'ns/step',
  columns: [{ key: 'ratio', label: 'stored / message bytes', digits: 2 }],
  notes: [
    'rxslice: `createCheckpointer({ state })` on `memoryCheckpoints()`: each step stores its partial update (a delta) as JSON, plus a full record once the deltas since the last one outweigh 8 copies of the state. The issue\'s target: stored bytes ≤ 1.2× the messages\' bytes.',
    'plain loop: a full copy of the state per step (what LangGraph\'s savers store), JSON in an array: storage grows with the square of the thread (the ratio column), and so does its time.',
  ],
  contenders: { plain: impl(fullCopyRun), rxslice: impl(rxsliceRun) },
};
