import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createSignalDirectory, defineSignalChannel, pollSignals, type ClaimedSignal, type InferSignal, type SignalFile } from '../../../src/jsonl/index';

const Completion = defineSignalChannel('completion', z.object({ agentType: z.string(), status: z.enum(['completed', 'failed']), tries: z.number().default(0) }));

describe('signal channel types', () => {
  it('carries the schema\'s output on the channel, the directory and what it reads', () => {
    type Signal = { agentType: string; status: 'completed' | 'failed'; tries: number };
    expectTypeOf(Completion.Signal).toEqualTypeOf<Signal>();
    expectTypeOf<InferSignal<typeof Completion>>().toEqualTypeOf<Signal>();
    const signals = createSignalDirectory({ dir: 'x', channel: Completion });
    expectTypeOf(signals.poll()).toEqualTypeOf<readonly SignalFile<Signal>[]>();
    expectTypeOf(signals.claimNext()).toEqualTypeOf<ClaimedSignal<Signal> | undefined>();
    signals.watch((s) => {
      expectTypeOf(s.signal.status).toEqualTypeOf<'completed' | 'failed'>();
    });
    signals.publish({ agentType: 'planner', status: 'completed' }); // `tries` has a default: publish takes the schema's input
    // @ts-expect-error a status the schema does not allow
    signals.publish({ agentType: 'planner', status: 'done', tries: 0 });
    expectTypeOf(pollSignals('.')[0]!.signal.nextState).toEqualTypeOf<string | null>();
  });
});
