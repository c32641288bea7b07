import { z } from 'zod';
import { append, defineEvent, defineSlice, SliceWindow } from '../../src/index';

/** The event of workload 14, and a bounded log slice that reduces it (the last 100). */
export const Sent = defineEvent('bench/sent', z.object({ id: z.number().int() }));
export const SentLog = defineSlice('sent', { policy: 'log', schema: z.object({ id: z.number().int() }), reducers: ({ on }) => [on(Sent, (_v, e) => append(e.payload))], window: SliceWindow.count(100) });
