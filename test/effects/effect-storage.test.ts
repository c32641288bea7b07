import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** When `failIf` is set, a write whose text it matches fails as a full disk would. */
const disk = vi.hoisted(() => ({ failIf: undefined as ((text: string) => boolean) | undefined }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    writeSync: (fd: number, data: string | NodeJS.ArrayBufferView, ...rest: unknown[]) => {
      if (disk.failIf !== undefined) {
        const text = typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
        if (disk.failIf(text)) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
      return (fs.writeSync as (...a: unknown[]) => number)(fd, data, ...rest);
    },
  };
});
import { z } from 'zod';
import { append, createSession, defineEffect, defineEvent, defineSlice, EffectSucceeded, RetryPolicy, type RxSliceError } from '../../src/index';
import { jsonl } from '../../src/jsonl/index';

/**
 * "Reported means stored" for effects run with `runEffect` (issue 37): the result is emitted only
 * when the run's `rxslice.effect.succeeded` and its `onSuccess` event were recorded; otherwise the
 * run errors with the session's error (or the `onSuccess` stage's `EffectFailedError` whose cause
 * it is), which `errors$` reports too.
 */

const Charged = defineEvent('payment/charged', z.object({ orderId: z.string(), chargeId: z.string() }));
const Payments = defineSlice('payments', { policy: 'log', reducers: ({ on }) => [on(Charged, (_v, e) => append(e.payload))] });
/** Counts succeeded effects: its journal record is the `succeeded` event's. */
const Succeeded = defineSlice('payments/succeeded', { policy: 'log', reducers: ({ on }) => [on(EffectSucceeded, (_v, e) => append(e.payload.effectId))] });
const Charge = defineEffect('payment/charge', z.object({ orderId: z.string() }), {
  onSuccess: (effect, chargeId: string) => Charged({ orderId: effect.payload.orderId, chargeId }),
});
const ChargeWithRetry = defineEffect('payment/chargeWithRetry', z.object({ orderId: z.string() }), {
  retry: RetryPolicy.fixed(0, 1),
  onSuccess: (effect, chargeId: string) => Charged({ orderId: effect.payload.orderId, chargeId }),
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxslice-effect-storage-'));
});
afterEach(() => {
  disk.failIf = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function open() {
  const session = createSession({ slices: [Payments, Succeeded], storage: jsonl({ dir, fsync: 'never' }) });
  session.handle(Charge, async (effect) => `ch_${effect.payload.orderId}`);
  session.handle(ChargeWithRetry, async (effect) => `ch_${effect.payload.orderId}`);
  const errors: RxSliceError[] = [];
  session.errors$.subscribe((e) => errors.push(e));
  return { session, errors };
}

describe('reported means stored: runEffect on JSONL storage', () => {
  it('errors (EffectFailedError, stage onSuccess, cause StorageFailedError) when the onSuccess event is not written; a reopen does not hold it', async () => {
    const { session, errors } = open();
    disk.failIf = (text) => text.includes('"payments"');
    await expect(lastValueFrom(session.runEffect(Charge({ orderId: 'o1' })))).rejects.toMatchObject({
      code: 'EFFECT_FAILED',
      stage: 'onSuccess',
      cause: { code: 'STORAGE_FAILED' },
    });
    expect(errors.map((e) => e.code)).toEqual(['STORAGE_FAILED', 'EFFECT_FAILED']);
    session.dispose();
    disk.failIf = undefined;
    const reopened = createSession({ slices: [Payments, Succeeded], storage: jsonl({ dir, fsync: 'never' }) });
    expect(reopened.read(Payments)).toEqual([]);
    expect(reopened.read(Succeeded)).toEqual([1]);
    reopened.dispose();
  });

  it('errors with the StorageFailedError when rxslice.effect.succeeded is not written (direct path and retry path)', async () => {
    for (const effect of [Charge({ orderId: 'o1' }), ChargeWithRetry({ orderId: 'o2' })]) {
      const { session } = open();
      disk.failIf = (text) => text.includes('"payments/succeeded"');
      await expect(lastValueFrom(session.runEffect(effect))).rejects.toMatchObject({ code: 'STORAGE_FAILED' });
      disk.failIf = undefined;
      session.dispose();
    }
  });

  it('emits the result when every write was made', async () => {
    const { session, errors } = open();
    await expect(lastValueFrom(session.runEffect(Charge({ orderId: 'o1' })))).resolves.toBe('ch_o1');
    expect(session.read(Payments)).toEqual([{ orderId: 'o1', chargeId: 'ch_o1' }]);
    expect(errors).toEqual([]);
    session.dispose();
  });
});
