import type { Observable, OperatorFunction } from 'rxjs';
import { Subject } from 'rxjs';
import type { Envelope } from '../events/envelope';
import { ReducerError } from './errors';
import type { SessionCore } from './session-core';

/**
 * @internal Pipes a new input through the session's operator middleware and subscribes the
 * core's reduce step to the output; returns the input. An operator middleware that errors is
 * reported on `errors$` and the pipeline resubscribed, so the session keeps accepting events
 * (after 10 errors in a row without an envelope getting through, it stays down and each
 * dispatch is reported instead of silently lost).
 */
export function connectOperators(core: SessionCore, operators: readonly OperatorFunction<Envelope, Envelope>[]): Subject<Envelope> {
  const input = new Subject<Envelope>();
  const piped = operators.reduce<Observable<Envelope>>((source, op) => source.pipe(op), input);
  let failuresInARow = 0;
  const connect = (): void => {
    core.subscriptions.add(
      piped.subscribe({
        next: (env) => {
          failuresInARow = 0;
          core.reduceEntered(env);
        },
        error: (err: unknown) => {
          core.errors$.next(new ReducerError(core.lastEnvelope(), '(session)', 'operator middleware', err));
          if (++failuresInARow < 10 && !core.disposed) connect();
          else core.pipelineDown = true;
        },
      }),
    );
  };
  connect();
  return input;
}
