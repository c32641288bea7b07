import { RxSliceError } from '../internal/errors.js';

/**
 * Thrown (policy `'throw'`) or reported (policy `'report'`) when an external event enables
 * no transition in the current state configuration, or arrives after the machine reached a
 * top-level final state (`done: true`).
 *
 * @example
 * ```ts
 * try { actor.send('nope') } catch (e) { if (e instanceof InvalidTransitionError) console.log(e.configuration) } // Logs: ['idle']
 * ```
 */
export class InvalidTransitionError extends RxSliceError {
  override readonly name = 'InvalidTransitionError';
  readonly machine: string;
  readonly eventType: string;
  readonly configuration: readonly string[];
  /** True when the machine was done (in a top-level final state): it takes no event any more. */
  readonly done: boolean;

  constructor(machine: string, eventType: string, configuration: readonly string[], done = false) {
    super(
      'INVALID_TRANSITION',
      done
        ? `Machine "${machine}" is done (final configuration [${configuration.join(', ')}]): event "${eventType}" is not accepted any more. ` +
            `Check canTransition() (false once done) or matches() before sending, or create the machine with { invalidTransitions: 'ignore' | 'report' }.`
        : `Machine "${machine}": event "${eventType}" enables no transition in configuration [${configuration.join(', ')}]. ` +
            `Check canTransition() before sending, add a transition for it, or create the machine with { invalidTransitions: 'ignore' | 'report' }.`,
    );
    this.machine = machine;
    this.eventType = eventType;
    this.configuration = configuration;
    this.done = done;
  }
}

/**
 * Thrown by {@link defineMachine} (and when a snapshot does not fit its definition) when the
 * state tree is malformed: duplicate ids, unknown targets, a parallel `initial`, ...
 *
 * @example
 * ```ts
 * defineMachine('m', { initial: 'x', states: { a: {} } }); // throws InvalidMachineError: unknown initial state "x"
 * ```
 */
export class InvalidMachineError extends RxSliceError {
  override readonly name = 'InvalidMachineError';
  readonly machine: string;

  constructor(machine: string, message: string) {
    super('INVALID_MACHINE', `Machine "${machine}": ${message}`);
    this.machine = machine;
  }
}

/** Where in an SCXML source an element starts (1-based line and column). */
export interface ScxmlLocation {
  readonly element: string;
  readonly line: number;
  readonly column: number;
}

/**
 * Thrown by {@link fromSCXML} when a document uses a feature outside the supported subset
 * (`<script>`, `<invoke>`, a send target other than the machine itself, an expression the
 * safe evaluator does not support, ...). Nothing is imported when it is thrown.
 *
 * @example
 * ```ts
 * fromSCXML('<scxml><state id="a"><onentry><script>x()</script></onentry></state></scxml>');
 * // throws ScxmlUnsupportedError: <script> at line 1 is not supported ...
 * ```
 */
export class ScxmlUnsupportedError extends RxSliceError {
  override readonly name = 'ScxmlUnsupportedError';
  readonly element: string;
  readonly line: number;
  readonly column: number;

  constructor(location: ScxmlLocation, detail: string, options?: { cause?: unknown }) {
    super(
      'SCXML_UNSUPPORTED',
      `<${location.element}> at line ${location.line}, column ${location.column}: ${detail}`,
      options,
    );
    this.element = location.element;
    this.line = location.line;
    this.column = location.column;
  }
}

/**
 * Thrown by {@link fromSCXML} when the document is not well-formed XML or not valid SCXML
 * (no `<scxml>` root, a transition target that names no state, a duplicate id, ...).
 *
 * @example
 * ```ts
 * fromSCXML('<scxml><state id="a"><transition target="zz"/></state></scxml>');
 * // throws ScxmlInvalidError: <transition> at line 1 ...: target "zz" names no state
 * ```
 */
export class ScxmlInvalidError extends RxSliceError {
  override readonly name = 'ScxmlInvalidError';
  readonly element: string | undefined;
  readonly line: number | undefined;

  constructor(location: ScxmlLocation | undefined, detail: string, options?: { cause?: unknown }) {
    super(
      'SCXML_INVALID',
      location ? `<${location.element}> at line ${location.line}, column ${location.column}: ${detail}` : detail,
      options,
    );
    this.element = location?.element;
    this.line = location?.line;
  }
}

/**
 * Thrown when an expression cannot be parsed or uses syntax outside the safe subset, and
 * raised (as the cause of `error.execution`) when evaluating one fails at run time.
 *
 * @example
 * ```ts
 * compileExpression('x = 1'); // throws InvalidExpressionError: cannot parse "x = 1" ...
 * ```
 */
export class InvalidExpressionError extends RxSliceError {
  override readonly name = 'InvalidExpressionError';
  readonly expression: string;

  constructor(expression: string, detail: string, options?: { cause?: unknown }) {
    super('INVALID_EXPRESSION', `Expression "${expression}": ${detail}`, options);
    this.expression = expression;
  }
}

/**
 * Thrown by a machine actor used before `start()` or after `stop()`/`dispose()`.
 *
 * @example
 * ```ts
 * createMachineActor(Light).send('timer/elapsed'); // throws MachineNotRunningError: call start() first
 * ```
 */
export class MachineNotRunningError extends RxSliceError {
  override readonly name = 'MachineNotRunningError';
  readonly machine: string;

  constructor(machine: string, status: 'idle' | 'stopped') {
    super(
      'MACHINE_NOT_RUNNING',
      status === 'idle'
        ? `Machine actor "${machine}" is not started: call start() first.`
        : `Machine actor "${machine}" is stopped: create a new actor (pass { snapshot: actor.snapshot() } to continue).`,
    );
    this.machine = machine;
  }
}

/** Thrown by `session.machine(def)` when the machine was not installed in that session. */
export class MachineNotInstalledError extends RxSliceError {
  override readonly name = 'MachineNotInstalledError';
  constructor(readonly machine: string) {
    super('MACHINE_NOT_INSTALLED', `Machine "${machine}" is not installed in this session. Call session.install(${machine}) first.`);
  }
}
