import { RxSliceError } from '../internal/errors.js';
import type { ConsideredTransition, TransitionDecision } from './transition-decision.js';
import { quote } from '../internal/quote';

/** One considered transition in a sentence: `guard "stepIsNew" refused "plan/stepAdded" in [active]: step "a" exists`. */
function describeConsidered(t: ConsideredTransition, eventType: string, configuration: readonly string[]): string {
  const label = t.guard ?? 'guard';
  // An anonymous guard is labelled after its transition (`guard of "plan/completed" in [active]`).
  const guard = `${label.startsWith('guard of ') ? label : `guard ${quote(label)}`}${t.name === undefined ? '' : ` of transition ${quote(t.name)}`}`;
  const where = `${quote(eventType)} in [${configuration.join(', ')}]`;
  const from = configuration.length === 1 && configuration[0] === t.source ? '' : ` (from ${quote(t.source)})`;
  if (t.verdict === 'threw') return `${guard} threw on ${where}${from}${t.reason === undefined ? '' : `: ${t.reason}`}`;
  return `${guard} refused ${where}${from}${t.reason === undefined ? ' (it gave no reason: return refuse(reason) instead of false to say why)' : `: ${t.reason}`}`;
}

function invalidTransitionMessage(machine: string, eventType: string, configuration: readonly string[], done: boolean, considered: readonly ConsideredTransition[]): string {
  const policy = `or create the machine with { invalidTransitions: 'ignore' | 'report' }.`;
  if (done)
    return (
      `Machine ${quote(machine)} is done (final configuration [${configuration.join(', ')}]): event ${quote(eventType)} is not accepted any more. ` +
      `Check canTransition() (false once done) or matches() before sending, ${policy}`
    );
  const guarded = considered.filter((t) => t.verdict === 'refused' || t.verdict === 'threw');
  if (guarded.length === 0)
    return (
      `Machine ${quote(machine)}: event ${quote(eventType)} enables no transition in configuration [${configuration.join(', ')}]: no active state has a transition for it. ` +
      `Check canTransition() before sending, add a transition for ${quote(eventType)} to one of [${configuration.join(', ')}], ${policy}`
    );
  return (
    `Machine ${quote(machine)}: ${guarded.map((t) => describeConsidered(t, eventType, configuration)).join('; ')}. ` +
    `Check canTransition() or explainTransition() before sending, ${policy}`
  );
}

/**
 * Thrown (policy `'throw'`) or reported (policy `'report'`) when an external event enables
 * no transition in the current state configuration, or arrives after the machine reached a
 * top-level final state (`done: true`).
 *
 * @remarks The error explains itself: `considered` lists every transition that matched the
 * event from an active state, each with its source, targets, guard and verdict (the guard's
 * reason when it refused with `refuse(reason)`, the error's message when it threw). The message
 * names each guard that refused (`guard "stepIsNew" refused "plan/stepAdded" in [active]`) and
 * says "enables no transition" only when no active state has a transition for the event.
 * @example
 * ```ts
 * try { session.dispatch(AddStep({ id: 'tests', title: 'again' })) } catch (e) {
 *   if (e instanceof InvalidTransitionError) console.log(e.considered.map((t) => [t.guard, t.verdict]));
 * } // Logs: [['stepIsNew', 'refused']]
 * ```
 */
export class InvalidTransitionError extends RxSliceError {
  override readonly name = 'InvalidTransitionError';
  /** The machine's name. */
  readonly machine: string;
  /** The `type` of the refused event. */
  readonly eventType: string;
  /** The active state ids when the event was refused. */
  readonly configuration: readonly string[];
  /** True when the machine was done (in a top-level final state): it takes no event any more. */
  readonly done: boolean;
  /** The transitions that matched the event from the active states, with their guards' verdicts (empty when none matched or when done). */
  readonly considered: readonly ConsideredTransition[];

  constructor(
    machine: string,
    eventType: string,
    configuration: readonly string[],
    done = false,
    considered: readonly ConsideredTransition[] = [],
  ) {
    super('INVALID_TRANSITION', invalidTransitionMessage(machine, eventType, configuration, done, considered));
    this.machine = machine;
    this.eventType = eventType;
    this.configuration = configuration;
    this.done = done;
    this.considered = considered;
  }

  /** The decision this error reports, in the shape `explainTransition()` answers. */
  get decision(): TransitionDecision {
    return { machine: this.machine, event: this.eventType, configuration: this.configuration, done: this.done, enabled: false, considered: this.considered };
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
  /** The machine's name. */
  readonly machine: string;

  constructor(machine: string, message: string) {
    super('INVALID_MACHINE', `Machine ${quote(machine)}: ${message}`);
    this.machine = machine;
  }
}

/** Where in an SCXML source an element starts (1-based line and column). */
export interface ScxmlLocation {
  /** The SCXML element's name, e.g. `transition` (undefined when the problem has no element). */
  readonly element: string;
  /** The element's line in the document (1-based). */
  readonly line: number;
  /** The element's column in the line (1-based). */
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
  /** The SCXML element's name, e.g. `transition` (undefined when the problem has no element). */
  readonly element: string;
  /** The element's line in the document (1-based). */
  readonly line: number;
  /** The element's column in the line (1-based). */
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
  /** The SCXML element's name, e.g. `transition` (undefined when the problem has no element). */
  readonly element: string | undefined;
  /** The element's line in the document (1-based). */
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
  /** The expression's source text. */
  readonly expression: string;

  constructor(expression: string, detail: string, options?: { cause?: unknown }) {
    super('INVALID_EXPRESSION', `Expression ${quote(expression)}: ${detail}`, options);
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
  /** The machine's name. */
  readonly machine: string;

  constructor(machine: string, status: 'idle' | 'stopped') {
    super(
      'MACHINE_NOT_RUNNING',
      status === 'idle'
        ? `Machine actor ${quote(machine)} is not started: call start() first.`
        : `Machine actor ${quote(machine)} is stopped: create a new actor (pass { snapshot: actor.snapshot() } to continue).`,
    );
    this.machine = machine;
  }
}

/** Thrown by `session.machine(def)` when the machine was not installed in that session. */
export class MachineNotInstalledError extends RxSliceError {
  override readonly name = 'MachineNotInstalledError';
  constructor(
    /** The machine's name. */
    readonly machine: string,
  ) {
    super('MACHINE_NOT_INSTALLED', `Machine ${quote(machine)} is not installed in this session. Call session.install(${machine}) first.`);
  }
}

/**
 * Thrown when an action is built from something it cannot use, such as `effect(fn)` with a
 * plain function instead of a `defineEffect` creator. Nothing is defined when it is thrown.
 *
 * @example
 * ```ts
 * effect(() => ({ type: 'x' })); // throws InvalidMachineActionError: effect() takes an effect creator made by defineEffect ...
 * ```
 */
export class InvalidMachineActionError extends RxSliceError {
  override readonly name = 'InvalidMachineActionError';
  /** The action helper that refused its argument (`'effect'`). */
  readonly action: string;

  constructor(action: string, message: string) {
    super('INVALID_MACHINE_ACTION', message);
    this.action = action;
  }
}
