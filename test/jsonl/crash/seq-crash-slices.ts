import { z } from 'zod';
import { defineEvent, defineSlice, type SliceDef } from '../../../src/index';

/** Changes the only stored slice. */
export const Planned = defineEvent('plan/updated', z.object({ n: z.number().int() }));
/** Declared, reduced by no slice: stores nothing. */
export const Called = defineEvent('tool/called', z.object({ n: z.number().int() }));
export const Plan = defineSlice('plan', { policy: 'state', schema: z.number(), initial: [0], reducers: ({ onLatest }) => [onLatest(Planned, (_c, e) => e.payload.n)] });
export const SEQ_CRASH_SLICES: readonly SliceDef<string, any>[] = [Plan];
