import { lastValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  all,
  createSession,
  defineEffect,
  defineEvent,
  defineSlice,
  MissingEffectHandlerError,
  none,
  race,
  SagaRuntimeMissingError,
  sequence,
  withEffects,
  type Event,
  type RxSliceError,
} from '../../src/index';

/**
 * The effect and saga layers (docs/SIZE.md) are linked by the first `defineEffect` / `defineSaga`
 * call of a program. This file is its own program (vitest evaluates each file's modules anew):
 * it calls neither until the last test, so the tests before it see a session without them.
 */
const Requested = defineEvent('test/requested', z.object({ effect: z.unknown() }));
const Requests = defineSlice('requests', {
  policy: 'log',
  reducers: ({ on }) => [on(Requested, (_view, e) => withEffects(none(), [e.payload.effect as Event]))],
});

const open = () => {
  const session = createSession({ slices: [Requests] });
  const errors: RxSliceError[] = [];
  session.errors$.subscribe((e) => errors.push(e));
  return { session, errors };
};

describe('a session in a program without effect or saga definitions', () => {
  it('reports a requested effect as unhandled, as the effect runtime does (every leaf of all, the first of race and sequence)', () => {
    const { session, errors } = open();
    session.dispatch(Requested({ effect: { type: 'mail/send', payload: 1 } }));
    session.dispatch(Requested({ effect: all([{ type: 'a', payload: 0 }, { type: 'b', payload: 0 }]) }));
    session.dispatch(Requested({ effect: race([{ type: 'c', payload: 0 }, { type: 'd', payload: 0 }]) }));
    session.dispatch(Requested({ effect: sequence([{ type: 'e', payload: 0 }, { type: 'f', payload: 0 }]) }));
    expect(errors.map((e) => [e.constructor, (e as MissingEffectHandlerError).effectType])).toEqual(
      ['mail/send', 'a', 'b', 'c', 'e'].map((type) => [MissingEffectHandlerError, type]),
    );
    session.dispose();
  });

  it('runEffect fails with MissingEffectHandlerError, reported on errors$', async () => {
    const { session, errors } = open();
    await expect(lastValueFrom(session.runEffect({ type: 'mail/send', payload: 1 }))).rejects.toBeInstanceOf(MissingEffectHandlerError);
    expect(errors).toHaveLength(1);
    await expect(lastValueFrom(session.runEffect(all([])))).resolves.toEqual([]);
    session.dispose();
  });

  it('has no sagas to resume or report, and a saga option says how to attach the saga runtime', () => {
    const { session } = open();
    expect(session.resumeSagas()).toEqual([]);
    expect(session.sagaHistory()).toEqual([]);
    session.dispose();
    expect(() => session.resumeSagas()).toThrow(/disposed/i);
    expect(() => createSession({ slices: [], sagaHistory: { keepLast: 5 } })).toThrow(/installSagas\(session, \{ sagas \}\)/);
    expect(() => createSession({ slices: [], sagas: [] })).toThrow(SagaRuntimeMissingError);
    expect(() => createSession({ slices: [], sagas: [] })).toThrow(/createSession\(\{ sagas: \[\] \}\) needs the saga runtime/);
  });

  it('session.install / session.machine refuse a value that is neither a slice nor a machine definition, naming what they take', () => {
    const { session } = open();
    expect(() => session.install({ name: 'phase' } as never)).toThrow(/a machine from defineMachine, setupMachine or fromSCXML \(got object\)/);
    expect(() => session.machine(null as never)).toThrow(TypeError);
    session.dispose();
  });

  it('an effect defined after the session is run by it: the first commit that requests one installs the runtime', async () => {
    const { session, errors } = open();
    const Mail = defineEffect('mail/send', z.number()); // links the effect layer now
    session.dispatch(Requested({ effect: Mail(1) })); // installs the runtime: no handler yet, reported by it
    expect(errors.map((e) => e.code)).toEqual(['MISSING_EFFECT_HANDLER']);
    const sent: number[] = [];
    session.handle(Mail, (effect) => {
      sent.push(effect.payload);
      return Promise.resolve();
    });
    session.dispatch(Requested({ effect: Mail(2) }));
    await Promise.resolve();
    expect(sent).toEqual([2]); // once: the runtime routes it, not the runtime and the watch
    await expect(lastValueFrom(session.runEffect(Mail(3)))).resolves.toBeUndefined();
    expect(sent).toEqual([2, 3]);
    session.dispose();
  });
});
