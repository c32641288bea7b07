import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { firstValueFrom, take, toArray, VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  createSignalDirectory,
  defineSignalChannel,
  InvalidSignalError,
  SignalClaimLostError,
  SignalFileRejectedError,
  SignalHandlerError,
  type SignalFile,
} from '../../../src/jsonl/index';
import { Numbered, signalDir } from './signal-fixtures';

const dirs: string[] = [];
const newDir = (): string => {
  const d = signalDir();
  dirs.push(dirname(d));
  return d;
};
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const envelope = (channel: string, signal: unknown) => JSON.stringify({ format: 'rxslice.signal/1', channel, source: 'hand', publishedAt: '2026-01-01T00:00:00.000Z', signal });
/** A pid that existed a moment ago and no longer does. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout as unknown as number;

describe('defineSignalChannel', () => {
  it('carries the signal type and refuses names that cannot go into a file name, and non-schemas', () => {
    const C = defineSignalChannel('completion', z.object({ status: z.string() }));
    expect(C.name).toBe('completion');
    expect(() => defineSignalChannel('has space', z.string())).toThrow(InvalidSignalError);
    expect(() => defineSignalChannel('a/b', z.string())).toThrow(/letters, digits/);
    expect(() => defineSignalChannel('ok', {} as z.ZodString)).toThrow(/zod schema/);
  });
});

describe('publish and poll: order', () => {
  it('polls in publish order across two directory objects and sources, within one millisecond, stably', () => {
    const dir = newDir();
    const a = createSignalDirectory({ dir, channel: Numbered, source: 'planner' });
    const b = createSignalDirectory({ dir, channel: Numbered, source: 'code-reviewer' });
    vi.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 10, 28, 9, 0, 0, 5)); // every signal in the same ms
    for (let n = 0; n < 40; n++) (n % 3 === 0 ? b : a).publish({ n, by: 'x' });
    const polled = a.poll();
    expect(polled.map((s) => s.signal.n)).toEqual(Array.from({ length: 40 }, (_, n) => n));
    expect(b.poll().map((s) => s.id)).toEqual(polled.map((s) => s.id)); // stable, and the same for every reader
    expect(polled[0]!.source).toBe('code-reviewer');
    expect(polled[1]!.source).toBe('planner');
    expect(polled[0]!.publishedAt).toBe('2026-11-28T09:00:00.005Z');
  });

  it('a wall clock that goes back does not reorder one process\'s signals', () => {
    const dir = newDir();
    const d = createSignalDirectory({ dir, channel: Numbered });
    const now = vi.spyOn(Date, 'now');
    for (const [n, ms] of [[0, 5_000], [1, 9_000], [2, 1_000], [3, 9_500]] as const) {
      now.mockReturnValue(Date.UTC(2026, 0, 1) + ms);
      d.publish({ n, by: 'x' });
    }
    expect(d.poll().map((s) => s.signal.n)).toEqual([0, 1, 2, 3]);
  });

  it('orders by the time in the name (not by mtime or directory order): an older signal of another process comes first', () => {
    const dir = newDir();
    const d = createSignalDirectory({ dir, channel: Numbered });
    d.publish({ n: 1, by: 'this process' });
    // Another process (pid 1, another publisher) published earlier; its file lands later.
    writeFileSync(join(dir, 'other-20200101T000000000Z-00000007-1-0badcafe.json'), envelope('numbered', { n: 0, by: 'other' }));
    expect(d.poll().map((s) => [s.signal.n, s.source])).toEqual([[0, 'other'], [1, 'numbered']]);
  });

  it('names files <source>-<UTC time>-<seq>-<pid>-<random>.json and writes the envelope', () => {
    const dir = newDir();
    const d = createSignalDirectory({ dir, channel: Numbered, source: 'planner' });
    const s = d.publish({ n: 1, by: 'x' });
    expect(s.path).toBe(join(dir, `${s.id}.json`));
    expect(s.id).toMatch(new RegExp(`^planner-\\d{8}T\\d{9}Z-\\d{8}-${process.pid}-[0-9a-f]{8}$`));
    expect(JSON.parse(readFileSync(s.path, 'utf8'))).toEqual({ format: 'rxslice.signal/1', channel: 'numbered', source: 'planner', publishedAt: s.publishedAt, signal: { n: 1, by: 'x' } });
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toEqual([`${s.id}.json`]); // no temp file left
  });
});

describe('schema validation', () => {
  it('publish refuses a signal that fails the schema, with zod\'s issues, and writes nothing', () => {
    const dir = newDir();
    const d = createSignalDirectory({ dir, channel: Numbered });
    let error: unknown;
    try {
      d.publish({ n: 1.5, by: 'x' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidSignalError);
    expect((error as InvalidSignalError).code).toBe('INVALID_SIGNAL');
    expect((error as InvalidSignalError).issues.map((i) => i.path)).toEqual([['n']]);
    expect(() => d.publish({ n: 1, by: 'x' }, { source: 'not a word' })).toThrow(/source/);
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toEqual([]);
  });

  it('poll gives the schema\'s output (transforms and defaults applied)', () => {
    const C = defineSignalChannel('with-default', z.object({ status: z.string(), tries: z.number().default(0) }));
    const dir = newDir();
    const d = createSignalDirectory({ dir, channel: C });
    writeFileSync(join(dir, 'hand-20260101T000000000Z-00000001-1-00000000.json'), envelope('with-default', { status: 'completed' }));
    expect(d.poll().map((s) => s.signal)).toEqual([{ status: 'completed', tries: 0 }]);
  });
});

describe('bad files are reported and set aside, never lost, never fatal', () => {
  it('not JSON, no envelope, another channel, wrong schema, a bad name, a stale temp file: each moved unchanged to rejected/ with its reason', () => {
    const dir = newDir();
    const d = createSignalDirectory({ dir, channel: Numbered, staleTempMs: 60_000 });
    const good = d.publish({ n: 1, by: 'x' });
    const files: Record<string, string> = {
      'a-20260101T000000000Z-00000001-1-00000001.json': '{"format":"rxslice.signal/1","chan', // truncated
      'a-20260101T000000000Z-00000002-1-00000001.json': JSON.stringify({ agent: 'planner', status: 'done' }),
      'a-20260101T000000000Z-00000003-1-00000001.json': envelope('other', { n: 3, by: 'x' }),
      'a-20260101T000000000Z-00000004-1-00000001.json': envelope('numbered', { n: 'four', by: 'x' }),
      'planner-20260101_120000.json': envelope('numbered', { n: 5, by: 'x' }),
      'a-20260101T000000000Z-00000006-1-00000001.json.3141592653': '{"format":', // a dead writer's temp file
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const old = new Date(Date.now() - 120_000);
    utimesSync(join(dir, 'a-20260101T000000000Z-00000006-1-00000001.json.3141592653'), old, old);
    writeFileSync(join(dir, 'b-20260101T000000000Z-00000007-1-00000001.json.2718281828'), '{"for'); // a write in progress: left alone
    writeFileSync(join(dir, '.gitkeep'), ''); // hidden: left alone
    const reported: SignalFileRejectedError[] = [];
    d.errors$.subscribe((e) => reported.push(e as SignalFileRejectedError));

    expect(d.poll().map((s) => s.id)).toEqual([good.id]);
    const reasons = Object.fromEntries(reported.map((e) => [e.path.slice(dir.length + 1), e.reason]));
    expect(reasons).toEqual({
      'a-20260101T000000000Z-00000001-1-00000001.json': 'not-json',
      'a-20260101T000000000Z-00000002-1-00000001.json': 'not-a-signal',
      'a-20260101T000000000Z-00000003-1-00000001.json': 'wrong-channel',
      'a-20260101T000000000Z-00000004-1-00000001.json': 'schema',
      'planner-20260101_120000.json': 'bad-name',
      'a-20260101T000000000Z-00000006-1-00000001.json.3141592653': 'partial',
    });
    const schema = reported.find((e) => e.reason === 'schema')!;
    expect(schema.code).toBe('SIGNAL_FILE_REJECTED');
    expect(schema.issues.map((i) => i.path)).toEqual([['n']]);
    for (const e of reported) {
      expect(readFileSync(e.rejectedPath, 'utf8')).toBe(files[e.path.slice(dir.length + 1)]); // unchanged
      expect(JSON.parse(readFileSync(`${e.rejectedPath}.reason.json`, 'utf8'))).toMatchObject({ path: e.path, reason: e.reason });
    }
    expect(readdirSync(dir).sort()).toEqual(['.gitkeep', 'b-20260101T000000000Z-00000007-1-00000001.json.2718281828', `${good.id}.json`, 'claimed', 'processed', 'rejected'].sort());
    // Set aside once: the next poll reports nothing new.
    expect(d.poll().map((s) => s.id)).toEqual([good.id]);
    expect(reported).toHaveLength(6);
  });

  it('claimNext skips a bad file (setting it aside) and takes the next good one', () => {
    const dir = newDir();
    const d = createSignalDirectory({ dir, channel: Numbered });
    writeFileSync(join(dir, 'a-20200101T000000000Z-00000001-1-00000001.json'), 'not json');
    const good = d.publish({ n: 1, by: 'x' });
    const reasons: string[] = [];
    d.errors$.subscribe((e) => reasons.push((e as SignalFileRejectedError).reason));
    expect(d.claimNext()?.id).toBe(good.id);
    expect(reasons).toEqual(['not-json']);
    expect(readdirSync(join(dir, 'rejected')).filter((f) => !f.endsWith('.reason.json'))).toHaveLength(1);
  });
});

describe('claims', () => {
  it('of two claimers of one signal exactly one wins; release puts it back in its place; archive moves it to processed/', () => {
    const dir = newDir();
    const a = createSignalDirectory({ dir, channel: Numbered });
    const b = createSignalDirectory({ dir, channel: Numbered });
    const [s0, s1] = [0, 1].map((n) => a.publish({ n, by: 'x' })) as [SignalFile<typeof Numbered.Signal>, SignalFile<typeof Numbered.Signal>];
    const mine = a.claim(s0);
    expect(mine?.path).toMatch(new RegExp(`claimed/${s0.id}~\\d+~${process.pid}~`));
    expect(b.claim(s0)).toBeUndefined();
    expect(b.poll().map((s) => s.id)).toEqual([s1.id]);
    expect(b.claimNext()?.id).toBe(s1.id);
    a.release(mine!);
    expect(b.poll().map((s) => s.id)).toEqual([s0.id]);
    const again = b.claimNext()!;
    const archived = b.archive(again);
    expect(archived.path).toBe(join(dir, 'processed', `${s0.id}.json`));
    expect(archived.signal).toEqual({ n: 0, by: 'x' });
    expect(() => a.archive(mine!)).toThrow(SignalClaimLostError);
  });

  it('a claim not renewed for leaseMs goes back to the queue; renew keeps it; its old claimer then gets SignalClaimLostError', () => {
    // The wall clock is mocked (claims and renewals read Date.now), so the test does not depend on timers.
    const t0 = Date.now();
    const now = vi.spyOn(Date, 'now').mockReturnValue(t0);
    const dir = newDir();
    const a = createSignalDirectory({ dir, channel: Numbered, leaseMs: 1000 });
    const b = createSignalDirectory({ dir, channel: Numbered, leaseMs: 1000 });
    const s = a.publish({ n: 0, by: 'x' });
    const claimed = a.claim(s)!;
    now.mockReturnValue(t0 + 700);
    a.renew(claimed);
    now.mockReturnValue(t0 + 1200); // 1,200 ms since the claim, 500 since the renewal
    expect(b.poll()).toEqual([]);
    now.mockReturnValue(t0 + 1800); // 1,100 ms since the renewal
    expect(b.poll().map((x) => x.id)).toEqual([s.id]);
    expect(() => a.archive(claimed)).toThrow(SignalClaimLostError);
    expect(() => a.renew(claimed)).toThrow(SignalClaimLostError);
  });

  it('without a renewal, the lease runs from the claim time (not from the older publish time)', () => {
    const t0 = Date.now();
    const now = vi.spyOn(Date, 'now').mockReturnValue(t0);
    const dir = newDir();
    const d = createSignalDirectory({ dir, channel: Numbered, leaseMs: 1000 });
    const s = d.publish({ n: 0, by: 'x' });
    now.mockReturnValue(t0 + 5000); // published long ago, claimed now
    d.claim(s);
    now.mockReturnValue(t0 + 5900);
    expect(d.poll()).toEqual([]);
    now.mockReturnValue(t0 + 6100);
    expect(d.poll().map((x) => x.id)).toEqual([s.id]);
  });

  it('a dead pid returns a claim at once on the same host only; another host\'s claim waits for its lease', () => {
    const dir = newDir();
    const d = createSignalDirectory({ dir, channel: Numbered });
    const [s0, s1] = [0, 1].map((n) => d.publish({ n, by: 'x' })) as [SignalFile<unknown>, SignalFile<unknown>];
    const pid = Number(deadPid());
    const host = hostname().replace(/[^A-Za-z0-9.-]/g, '_');
    mkdirSync(join(dir, 'claimed'), { recursive: true });
    renameSync(s0.path, join(dir, 'claimed', `${s0.id}~${Date.now()}~${pid}~${host}~0badcafe-1.json`));
    renameSync(s1.path, join(dir, 'claimed', `${s1.id}~${Date.now()}~${pid}~elsewhere.example~0badcafe-2.json`));
    expect(d.poll().map((s) => s.id)).toEqual([s0.id]);
    expect(readdirSync(join(dir, 'claimed'))).toHaveLength(1);
    expect(existsSync(s1.path)).toBe(false);
  });
});

describe('watch(handler)', () => {
  it('handles in order, archives, emits the archived signal; a new signal wakes it', async () => {
    const dir = newDir();
    const d = createSignalDirectory({ dir, channel: Numbered });
    for (let n = 0; n < 3; n++) d.publish({ n, by: 'x' });
    const seen: number[] = [];
    const done = firstValueFrom(d.watch(async (s) => void seen.push(s.signal.n), { pollIntervalMs: 50 }).pipe(take(4), toArray()));
    setTimeout(() => d.publish({ n: 3, by: 'late' }), 100);
    const archived = await done;
    expect(seen).toEqual([0, 1, 2, 3]);
    expect(archived.map((s) => s.path)).toEqual(archived.map((s) => join(dir, 'processed', `${s.id}.json`)));
    expect(d.poll()).toEqual([]);
    d.dispose();
  });

  it('a failing handler: the signal goes back to the queue and the watch errors with SignalHandlerError', async () => {
    const dir = newDir();
    const d = createSignalDirectory({ dir, channel: Numbered });
    const s = d.publish({ n: 0, by: 'x' });
    const error = await firstValueFrom(d.watch(() => Promise.reject(new Error('agent crashed')), { fsWatch: false })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SignalHandlerError);
    expect((error as SignalHandlerError).cause).toEqual(new Error('agent crashed'));
    expect(d.poll().map((x) => x.id)).toEqual([s.id]);
    expect(readdirSync(join(dir, 'claimed'))).toEqual([]);
  });

  it('renews the claim of a running handler every leaseMs / 3, so a slow handler keeps its signal', async () => {
    // Renewals run on the scheduler and read the mocked wall clock: no real waiting.
    const t0 = Date.now();
    const now = vi.spyOn(Date, 'now').mockReturnValue(t0);
    const scheduler = new VirtualTimeScheduler(VirtualAction, 0);
    const dir = newDir();
    const d = createSignalDirectory({ dir, channel: Numbered, leaseMs: 900, scheduler });
    const other = createSignalDirectory({ dir, channel: Numbered, leaseMs: 900 });
    const s = d.publish({ n: 0, by: 'x' });
    let finish!: () => void;
    const started = new Promise<void>((resolveStarted) => {
      d.watch(() => {
        resolveStarted();
        return new Promise<void>((r) => (finish = r));
      }, { fsWatch: false }).subscribe();
      scheduler.flush(); // the first look at the directory (frame 0)
    });
    await started;
    now.mockReturnValue(t0 + 800);
    scheduler.maxFrames = 300; // one renewal period (900 / 3) of virtual time: the claim is renewed at t0 + 800
    scheduler.flush();
    now.mockReturnValue(t0 + 1500); // 1,500 ms since the claim, 700 since the renewal
    expect(other.poll()).toEqual([]);
    expect(readdirSync(join(dir, 'claimed'))).toHaveLength(1);
    finish();
    await new Promise((r) => setTimeout(r, 0));
    expect(readdirSync(join(dir, 'processed'))).toEqual([`${s.id}.json`]);
    d.dispose();
  });

  it('dispose completes a running watch', async () => {
    const dir = newDir();
    const d = createSignalDirectory({ dir, channel: Numbered });
    const completed = new Promise<void>((resolve) => d.watch(() => undefined).subscribe({ complete: resolve }));
    d.dispose();
    await completed;
  });
});
