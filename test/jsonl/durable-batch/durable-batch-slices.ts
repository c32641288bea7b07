import { z } from 'zod';
import { defineEvent, defineSlice } from '../../../src/index';

/** Adds `by` to the {@link Total}. */
export const Added = defineEvent('total/added', z.object({ by: z.number().int() }));
/** One number: the sum of every `total/added`. */
export const Total = defineSlice('total', { policy: 'state', schema: z.number().int(), initial: [0], reducers: ({ onLatest }) => [onLatest(Added, (n, e) => (n ?? 0) + e.payload.by)] });
