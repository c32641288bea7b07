import { z } from 'zod';
import { append, defineEvent, defineSlice, none } from '../src/index';

export const Note = z.object({ id: z.number().int(), text: z.string() });
export type Note = z.infer<typeof Note>;

export const NoteAdded = defineEvent('notes/added', Note);
export const NotesCleared = defineEvent('notes/cleared');
export const CounterBumped = defineEvent('counter/bumped', z.object({ by: z.number() }));
export const Exploded = defineEvent('test/exploded', z.object({ message: z.string() }));

/** A log of notes; `test/exploded` makes its reducer throw after the counter's reducer ran. */
export const Notes = defineSlice('notes', {
  policy: 'log',
  schema: Note,
  reducers: ({ on }) => [
    on(NoteAdded, (_view, e) => append(e.payload)),
    on(Exploded, (_view, e) => {
      throw new Error(e.payload.message);
    }),
  ],
});

/** A counter state slice that also listens to notes/added and test/exploded. */
export const Counter = defineSlice('counter', {
  policy: 'state',
  schema: z.object({ n: z.number() }),
  initial: [{ n: 0 }],
  reducers: ({ onLatest, on }) => [
    onLatest(CounterBumped, (c, e) => ({ n: (c?.n ?? 0) + e.payload.by })),
    onLatest(NoteAdded, (c) => ({ n: (c?.n ?? 0) + 1 })),
    onLatest(Exploded, (c) => ({ n: (c?.n ?? 0) + 1000 })),
    on(NotesCleared, () => none()),
  ],
});
