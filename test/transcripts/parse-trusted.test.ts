// `rxslice watch` dispatches the events parseLine makes without validating their payloads again
// (src/watch/watched-transcript.ts, `dispatchTrusted`): that is sound only while every event
// parseLine can make, from any line, is one its event's schema accepts unchanged.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import type { AnyEventCreator, Event } from '../../src/index';
import { transcriptEvents } from '../../src/transcripts/events';
import { parseLine } from '../../src/transcripts/parse';

const data = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'data');
const creators = new Map<string, AnyEventCreator>(transcriptEvents.map((c) => [c.type, c]));

/** Every line of the bundled transcripts. */
const lines: string[] = readdirSync(data)
  .filter((f) => f.endsWith('.jsonl'))
  .flatMap((f) => readFileSync(join(data, f), 'utf8').split('\n').filter((l) => l !== ''));

/** Throws unless `event` is a transcript event whose schema accepts its payload as it is. */
function expectAccepted(event: Event): void {
  const creator = creators.get(event.type);
  expect(creator, event.type).toBeDefined();
  const r = creator!.schema!.safeParse(event.payload);
  expect(r.success ? 'ok' : r.error.issues, event.type).toBe('ok');
  if (r.success) expect(r.data, event.type).toEqual(event.payload);
}

it('every event parseLine makes of the bundled transcripts passes its schema unchanged', () => {
  let events = 0;
  for (const line of lines) {
    for (const event of parseLine(line).events) {
      expectAccepted(event);
      events++;
    }
  }
  expect(events).toBeGreaterThan(3000);
});

type Path = readonly (string | number)[];

/** `value` with the value at `path` replaced by `replacement` (copies along the path). */
function replaceAt(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [key, ...rest] = path;
  const copy: Record<string | number, unknown> = Array.isArray(value) ? ([...(value as unknown[])] as unknown as Record<number, unknown>) : { ...(value as Record<string, unknown>) };
  copy[key!] = replaceAt(copy[key!], rest, replacement);
  return copy;
}

/** Every path of JSON `value` (objects and arrays included), each with its signature (array indices as `[]`). */
function* pathsOf(value: unknown, path: Path = []): Generator<{ path: Path; signature: string }> {
  if (path.length > 0) yield { path, signature: path.map((k) => (typeof k === 'number' ? '[]' : k)).join('.') };
  if (value === null || typeof value !== 'object' || path.length >= 6) return;
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.slice(0, 3).map((v, i) => [i, v]) : Object.entries(value);
  for (const [k, v] of entries) yield* pathsOf(v, [...path, k]);
}

// Odd values where the schemas are strict: fractions and negatives for counts, unknown statuses, nulls, arrays for objects.
const ODD: readonly unknown[] = [-1, 0.5, 1e21, '', 'x', null, [], {}, true, [{ type: 'text' }]];

it('every event parseLine makes of a bundled line with any one value replaced by an odd one passes its schema unchanged (or the line gives no event)', () => {
  // One line for each (line type, path signature): every field the bundled transcripts show, each replaced in turn.
  const seen = new Set<string>();
  let tried = 0;
  for (const line of lines) {
    const value = JSON.parse(line) as { type?: unknown };
    for (const { path, signature } of pathsOf(value)) {
      const key = `${String(value.type)} ${signature}`;
      if (seen.has(key)) continue;
      seen.add(key);
      for (const odd of ODD) {
        for (const event of parseLine(JSON.stringify(replaceAt(value, path, odd))).events) expectAccepted(event);
        tried++;
      }
    }
  }
  expect(tried).toBeGreaterThan(1000);
});
