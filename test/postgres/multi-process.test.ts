import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { auditLog, bundleWorker, startWorker } from './multi-process';

const url = inject('databaseUrl');
const prefix = `rxm_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
let file: string;

beforeAll(async () => {
  file = await bundleWorker();
});

afterAll(async () => {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  for (const table of ['events', 'sessions', 'snapshots', 'schema_version']) await admin.query(`DROP TABLE IF EXISTS "${prefix}_${table}"`);
  await admin.end();
});

describe('a shared session across processes', () => {
  it('4 processes × 2,500 events, one killed (SIGKILL) mid-run and restarted: 0 lost, 0 duplicated, one gapless order, the same state hash everywhere', async () => {
    const sessionId = randomUUID();
    const workers = 4;
    const perWorker = 2_500;
    const total = workers * perWorker;
    const args = (w: number) => [url, prefix, sessionId, w, perWorker, total, 20];
    const running = Array.from({ length: workers }, (_, w) => startWorker(file, args(w)));
    // Kill worker 0 once it has written part of its share (its dispatches in flight die with it).
    const victim = running[0]!;
    await victim.line((l) => l.startsWith('progress ') && Number(l.split(' ')[1]) >= 600);
    victim.proc.kill('SIGKILL');
    await victim.exited;
    expect(victim.lines).not.toContain('sent');
    const restarted = startWorker(file, args(0));
    running[0] = restarted;
    const ready = await restarted.line((l) => l.startsWith('ready '));
    const alreadyDone = Number(ready.split(' ')[2]);
    expect(alreadyDone).toBeGreaterThanOrEqual(600);
    expect(alreadyDone).toBeLessThan(perWorker);
    const hashes = await Promise.all(running.map((w) => w.line((l) => l.startsWith('hash ') || l.startsWith('error '))));
    expect(hashes.filter((h) => h.startsWith('error '))).toEqual([]);
    expect(new Set(hashes.map((h) => h.split(' ')[1])).size).toBe(1);
    for (const h of hashes) expect(Number(h.split(' ')[2])).toBe(total);
    expect(await auditLog(url, prefix, sessionId, workers, perWorker)).toEqual({ events: total, lost: 0, duplicated: 0, seqGaps: 0, outOfOrder: 0 });
    await Promise.all(running.map((w) => w.exited));
  }, 180_000);
});
