import jsep from 'jsep';
import type { ActionArgs } from '../actions.js';
import { InvalidExpressionError } from '../errors.js';
import { quote } from '../../internal/quote';

/** A compiled expression: evaluates against the current action args, never with `eval`. */
export type CompiledExpression = (args: ActionArgs<unknown>) => unknown;

type Node = jsep.Expression;

const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__']);
const BINARY: Record<string, (a: unknown, b: unknown) => unknown> = {
  '+': (a, b) => (a as number) + (b as number),
  '-': (a, b) => (a as number) - (b as number),
  '*': (a, b) => (a as number) * (b as number),
  '/': (a, b) => (a as number) / (b as number),
  '%': (a, b) => (a as number) % (b as number),
  '==': (a, b) => a == b, // eslint-disable-line eqeqeq
  '!=': (a, b) => a != b, // eslint-disable-line eqeqeq
  '===': (a, b) => a === b,
  '!==': (a, b) => a !== b,
  '<': (a, b) => (a as number) < (b as number),
  '>': (a, b) => (a as number) > (b as number),
  '<=': (a, b) => (a as number) <= (b as number),
  '>=': (a, b) => (a as number) >= (b as number),
  // the binary bitwise operators (ECMAScript 13.12): pure arithmetic on the ToInt32 of both
  // operands. W3C IRP test 459 writes a logical "or" as `Var4==0 | Var3 != 2`. The shifts and
  // `~` stay outside the subset: no W3C test uses them.
  '&': (a, b) => (a as number) & (b as number),
  '^': (a, b) => (a as number) ^ (b as number),
  '|': (a, b) => (a as number) | (b as number),
};
const UNARY: Record<string, (a: unknown) => unknown> = {
  '!': (a) => !a,
  '-': (a) => -(a as number),
  '+': (a) => +(a as number),
  // ECMAScript 13.5.3 (the typeof operator): the subset's values are never functions, symbols or bigints
  typeof: (a) => typeof a,
};
const SAFE_FUNCTIONS: Record<string, (...args: unknown[]) => unknown> = {
  'Math.abs': (x) => Math.abs(x as number),
  'Math.ceil': (x) => Math.ceil(x as number),
  'Math.floor': (x) => Math.floor(x as number),
  'Math.round': (x) => Math.round(x as number),
  'Math.sqrt': (x) => Math.sqrt(x as number),
  'Math.pow': (x, y) => Math.pow(x as number, y as number),
  'Math.max': (...xs) => Math.max(...(xs as number[])),
  'Math.min': (...xs) => Math.min(...(xs as number[])),
  'JSON.stringify': (x) => JSON.stringify(x),
  'JSON.parse': (x) => JSON.parse(String(x)) as unknown,
};
/** ECMAScript reserved words (ECMAScript 12.7.2) the subset could meet as names: never datamodel names. */
const RESERVED_WORDS: ReadonlySet<string> = new Set(['typeof', 'in', 'instanceof', 'void', 'delete', 'new', 'function', 'var', 'let', 'const', 'return', 'yield', 'await', 'class']);
const GLOBALS: Record<string, unknown> = { undefined: undefined, NaN: Number.NaN, Infinity: Number.POSITIVE_INFINITY };
/** An own key of {@link GLOBALS}: `toString`, `constructor`, ... are inherited, never globals of the subset. */
const isGlobal = (name: string): boolean => Object.prototype.hasOwnProperty.call(GLOBALS, name);

/** The type URI of the SCXML Event I/O Processor, the only one rxslice has (SCXML C.1). */
export const SCXML_EVENT_PROCESSOR_TYPE = 'http://www.w3.org/TR/scxml/#SCXMLEventProcessor';
/** `_sessionid` (SCXML 5.10): one value, as rxslice has no cross-session addressing. */
export const SCXML_SESSION_ID = 'rxslice';
/** This session's address for the SCXML Event I/O Processor (SCXML C.1.1: `#_scxml_<sessionid>`). */
const SCXML_LOCATION = `#_scxml_${SCXML_SESSION_ID}`;

/**
 * `_ioprocessors` (SCXML 5.10, B.2.3): one entry per Event I/O Processor with its `location`.
 * rxslice's only processor is the SCXML one, reachable under its type URI and the short
 * name `scxml`. Frozen and always the same object, so it compares equal to a stored copy.
 */
const IO_PROCESSORS: Readonly<Record<string, { readonly location: string }>> = (() => {
  const scxml = Object.freeze({ location: SCXML_LOCATION });
  return Object.freeze({ [SCXML_EVENT_PROCESSOR_TYPE]: scxml, scxml });
})();

/**
 * The system variables of SCXML 5.10, all of which an expression can read; other names beginning
 * with `_` are rejected. Assigning to one is an `error.execution` at run time (SCXML 5.10).
 */
export const SYSTEM_VARIABLES: ReadonlySet<string> = new Set(['_event', '_sessionid', '_name', '_ioprocessors']);

/** What an expression sees of the document it belongs to. */
export interface ExpressionScope {
  /**
   * `_name` (SCXML 5.10): the `name` attribute of `<scxml>`, bound at load time and read-only;
   * `undefined` when the document has none (and for an expression compiled on its own).
   */
  readonly name?: string | undefined;
}

/**
 * The SCXML `_event` variable (SCXML 5.10.1) built from the action args. For an event the
 * machine sent itself with `<send>` (it has a send id), `origintype` is the SCXML Event I/O
 * Processor and `origin` this session's location, so a reply could be sent back (C.1);
 * `sendid` is set only when the `<send>` named one (`id` or `idlocation`). Raised,
 * platform and host-sent events leave all three blank, and `invokeid` is always blank
 * (`<invoke>` is not supported). SCXML 5.10 binds `_event` once per event taken from a queue:
 * every read while that event is processed returns the same frozen object.
 */
function eventVariable(args: ActionArgs<unknown>): Readonly<Record<string, unknown>> | undefined {
  if (args.event.type === 'rxslice.machine.init') return undefined; // _event is unbound until the first event (SCXML 5.10)
  // one value per event, so a copy stored in the datamodel compares equal to it (W3C IRP test 329)
  const bound = EVENT_VARIABLES.get(args.event);
  if (bound && bound.kind === args.eventKind && bound.sendId === args.sendId && bound.sendIdGenerated === args.sendIdGenerated) return bound.variable;
  const sent = args.sendId !== undefined;
  const variable = Object.freeze({
    name: args.event.type,
    data: args.event.payload,
    type: args.eventKind,
    sendid: sent && args.sendIdGenerated !== true ? args.sendId : undefined,
    origin: sent ? SCXML_LOCATION : undefined,
    origintype: sent ? SCXML_EVENT_PROCESSOR_TYPE : undefined,
    invokeid: undefined,
  });
  EVENT_VARIABLES.set(args.event, { kind: args.eventKind, sendId: args.sendId, sendIdGenerated: args.sendIdGenerated, variable });
  return variable;
}
/**
 * `_event` values by the event object the engine keeps while it processes that event. A memo, not
 * a registry (STYLE: no module-level state): a value is a pure function of its key and the args it
 * was built from, reused only when they match, and held weakly, so sessions never see each other.
 */
const EVENT_VARIABLES = new WeakMap<
  object,
  { readonly kind: ActionArgs<unknown>['eventKind']; readonly sendId: string | undefined; readonly sendIdGenerated: boolean | undefined; readonly variable: Readonly<Record<string, unknown>> }
>();

/** Reads `obj[key]` for own or array-length properties only: no prototype walking. */
export function readMember(obj: unknown, key: unknown): unknown {
  if (obj === null || obj === undefined) throw new TypeError(`Cannot read property ${quote(String(key))} of ${String(obj)}.`);
  const k = String(key);
  if (FORBIDDEN_KEYS.has(k)) throw new TypeError(`Access to ${quote(k)} is not allowed.`);
  if ((typeof obj === 'string' || Array.isArray(obj)) && k === 'length') return (obj as { length: number }).length;
  if (typeof obj === 'object' && Object.prototype.hasOwnProperty.call(obj, k)) return (obj as Record<string, unknown>)[k];
  return undefined;
}

/**
 * The subset's `key in obj` (ECMAScript 13.10.1, RelationalExpression `in`): as in ECMAScript
 * a `TypeError` when `obj` is not an object (a string, a number, `null`, `undefined`), else
 * whether it has the key. Unlike ECMAScript only own properties count (the objects the subset
 * sees are system variables and datamodel values, whose prototypes hold nothing of theirs), and
 * the keys member access refuses (`__proto__`, `constructor`, ...) are never present.
 */
function hasOwnKey(obj: unknown, key: unknown): boolean {
  if (obj === null || typeof obj !== 'object') throw new TypeError(`Cannot use "in" to search for ${quote(String(key))} in ${String(obj)}.`);
  const k = String(key);
  return !FORBIDDEN_KEYS.has(k) && Object.prototype.hasOwnProperty.call(obj, k);
}

function compileNode(node: Node, source: string, scope: ExpressionScope): CompiledExpression {
  const unsupported = (what: string): never => {
    throw new InvalidExpressionError(source, `${what} is outside the supported subset (literals, data names, member access, arithmetic, comparison, logical operators, & ^ |, typeof, in (own properties), ?:, arrays, In('id'), Math.*, JSON.stringify/parse, the system variables).`);
  };
  switch (node.type) {
    case 'Literal': {
      const value = (node as jsep.Literal).value;
      if (value instanceof RegExp) unsupported('a regular expression');
      return () => value;
    }
    case 'Identifier': {
      const name = (node as jsep.Identifier).name;
      if (name === '_event') return eventVariable;
      if (name === '_sessionid') return () => SCXML_SESSION_ID;
      if (name === '_ioprocessors') return () => IO_PROCESSORS;
      if (name === '_name') return () => scope.name;
      // names beginning with `_` are reserved for the platform (SCXML 5.10): one that is not a
      // system variable (_x, _data, ...) is rejected rather than read as undefined
      if (name.startsWith('_')) unsupported(`the system variable ${quote(name)} (only ${[...SYSTEM_VARIABLES].join(', ')} are bound)`);
      // jsep reads a reserved word (`return`, or `typeof` with no operand) as a name: never look it
      // up. It is an illegal expression, which SCXML 5.9 makes an error.execution when evaluated
      // (the W3C IRP tests use `return` for one), so it throws then rather than at import.
      if (RESERVED_WORDS.has(name))
        return () => {
          throw new SyntaxError(`Unexpected reserved word ${quote(name)} in ${quote(source)}.`);
        };
      if (isGlobal(name)) return () => GLOBALS[name];
      if (FORBIDDEN_KEYS.has(name)) unsupported(`the name ${quote(name)}`);
      return (args) => {
        const ctx = args.context as Record<string, unknown> | undefined;
        if (ctx === undefined || ctx === null || !Object.prototype.hasOwnProperty.call(ctx, name)) throw new ReferenceError(`${quote(name)} is not declared in the datamodel.`);
        return ctx[name];
      };
    }
    case 'MemberExpression': {
      const m = node as jsep.MemberExpression;
      const object = compileNode(m.object, source, scope);
      if (m.computed) {
        const property = compileNode(m.property, source, scope);
        return (args) => readMember(object(args), property(args));
      }
      const name = (m.property as jsep.Identifier).name;
      if (FORBIDDEN_KEYS.has(name)) unsupported(`access to ${quote(name)}`);
      return (args) => readMember(object(args), name);
    }
    case 'BinaryExpression': {
      const b = node as jsep.BinaryExpression;
      const left = compileNode(b.left, source, scope);
      const right = compileNode(b.right, source, scope);
      if (b.operator === '&&') return (args) => left(args) && right(args);
      if (b.operator === '||') return (args) => left(args) || right(args);
      if (b.operator === '??') return (args) => left(args) ?? right(args);
      if (b.operator === 'in') return (args) => hasOwnKey(right(args), left(args));
      const op = BINARY[b.operator] ?? unsupported(`the operator ${quote(b.operator)}`);
      return (args) => op(left(args), right(args));
    }
    case 'UnaryExpression': {
      const u = node as jsep.UnaryExpression;
      if (u.operator === 'typeof' && u.argument.type === 'Identifier') {
        // ECMAScript 13.5.3 step 2.a: `typeof` of an unresolvable reference is "undefined", not a ReferenceError
        const name = (u.argument as jsep.Identifier).name;
        if (!name.startsWith('_') && !isGlobal(name) && !FORBIDDEN_KEYS.has(name))
          return (args) => {
            const ctx = args.context as Record<string, unknown> | undefined;
            return ctx !== undefined && ctx !== null && Object.prototype.hasOwnProperty.call(ctx, name) ? typeof ctx[name] : 'undefined';
          };
      }
      const op = UNARY[u.operator] ?? unsupported(`the operator ${quote(u.operator)}`);
      const argument = compileNode(u.argument, source, scope);
      return (args) => op(argument(args));
    }
    case 'ConditionalExpression': {
      const c = node as jsep.ConditionalExpression;
      const test = compileNode(c.test, source, scope);
      const yes = compileNode(c.consequent, source, scope);
      const no = compileNode(c.alternate, source, scope);
      return (args) => (test(args) ? yes(args) : no(args));
    }
    case 'ArrayExpression': {
      const elements = (node as jsep.ArrayExpression).elements.map((e) => (e ? compileNode(e, source, scope) : () => undefined));
      return (args) => elements.map((e) => e(args));
    }
    case 'CallExpression': {
      const call = node as jsep.CallExpression;
      if (call.callee.type === 'Identifier' && (call.callee as jsep.Identifier).name === 'In' && call.arguments.length === 1) {
        const id = compileNode(call.arguments[0]!, source, scope);
        return (args) => args.inState(String(id(args)));
      }
      if (call.callee.type === 'MemberExpression' && !(call.callee as jsep.MemberExpression).computed) {
        const m = call.callee as jsep.MemberExpression;
        const owner = m.object.type === 'Identifier' ? (m.object as jsep.Identifier).name : '';
        const fn = SAFE_FUNCTIONS[`${owner}.${(m.property as jsep.Identifier).name}`];
        if (fn) {
          const params = call.arguments.map((a) => compileNode(a, source, scope));
          return (args) => fn(...params.map((p) => p(args)));
        }
      }
      return unsupported('a function call other than In(stateId), Math.* or JSON.stringify/parse');
    }
    default:
      return unsupported(`a ${node.type}`);
  }
}

/** The word operators the subset adds to jsep's defaults: `typeof` (ECMAScript 13.5.3). */
const SUBSET_UNARY_OPS = ['typeof'] as const;
/** ... and `in` (ECMAScript 13.10), at the precedence jsep gives the other relational operators. */
const SUBSET_BINARY_OPS = [['in', 7]] as const;

/**
 * Parses with jsep plus the subset's word operators. jsep keeps its operator tables on its
 * class (`jsep.addUnaryOp` and friends are static; there is no per-instance table, and a
 * subclass would not help as the parser reads `Jsep.unary_ops` directly), so the operators
 * are registered for the duration of this synchronous call only and removed afterwards:
 * other users of jsep in the process never see them, as no other code runs in between
 * (jsep's own plugin hooks aside). An operator someone else registered is left in place.
 */
function parse(source: string): Node {
  const unary = SUBSET_UNARY_OPS.filter((op) => !Object.prototype.hasOwnProperty.call(jsep.unary_ops, op));
  const binary = SUBSET_BINARY_OPS.filter(([op]) => !Object.prototype.hasOwnProperty.call(jsep.binary_ops, op));
  for (const op of unary) jsep.addUnaryOp(op);
  for (const [op, precedence] of binary) jsep.addBinaryOp(op, precedence);
  try {
    return jsep(source);
  } finally {
    for (const op of unary) jsep.removeUnaryOp(op);
    for (const [op] of binary) jsep.removeBinaryOp(op);
  }
}

/** The source with the contents of its string literals blanked out (for token checks). */
function withoutStrings(source: string): string {
  return source.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, '""');
}

/**
 * Compiles an SCXML ECMAScript expression of the safe subset into a function, with `jsep`
 * and a tree walker: literals, datamodel names, member access (own properties and
 * `length` only), arithmetic, comparison, `&& || ?? !`, the bitwise `& ^ |` (ECMAScript
 * 13.12), `typeof` (ECMAScript 13.5.3: the type string of the value; `"undefined"` for an
 * undeclared name), `key in obj` (ECMAScript 13.10.1, own properties only), `?:`, array
 * literals, `In('id')`, a few pure functions (`Math.abs/ceil/floor/round/sqrt/pow/max/min`, `JSON.stringify/parse`)
 * and the system variables of SCXML 5.10: `_event` (`name`, `data`, `type`, `sendid`, `origin`,
 * `origintype`, `invokeid`), `_sessionid`, `_name` (from `scope`) and `_ioprocessors`. Never uses
 * `eval` or `new Function`.
 *
 * @param scope - What the expression sees of its document: `_name` (SCXML 5.10).
 *
 * @throws {@link InvalidExpressionError} when the text does not parse or leaves the subset,
 * including any other name beginning with `_` (reserved for the platform, SCXML 5.10).
 * Evaluation errors (an undeclared name, a member of `undefined`) are thrown at run time
 * and become `error.execution` events.
 * @example
 * ```ts
 * const f = compileExpression("x + 1 > 2 && In('s1')");
 * f({ context: { x: 2 }, inState: () => true, ... }); // true
 * ```
 */
export function compileExpression(source: string, scope: ExpressionScope = {}): CompiledExpression {
  let ast: Node;
  try {
    ast = parse(source);
  } catch (error) {
    throw new InvalidExpressionError(source, `cannot parse: ${(error as Error).message}.`, { cause: error });
  }
  if (ast.type === 'Compound') throw new InvalidExpressionError(source, 'only one expression is allowed (statements are not supported).');
  // jsep reads `++x` as `+(+x)` and `--x` as `-(-x)`: reject the update operators instead of evaluating them wrongly
  if (/\+\+|--/.test(withoutStrings(source))) throw new InvalidExpressionError(source, 'the update operators ++ and -- are outside the supported subset (use <assign>).');
  return compileNode(ast, source, scope);
}

/** A location expression (`x`, `x.y`, `x[0]`) as a path of keys, for `<assign>` and `idlocation`. */
export type CompiledLocation = (args: ActionArgs<unknown>) => readonly (string | number)[];

/**
 * Compiles an assignment location: a datamodel name followed by member accesses.
 * A system variable (SCXML 5.10) compiles, but writing to it throws (an `error.execution`).
 *
 * @param scope - What computed keys (`x[_name]`) see of the document, as for {@link compileExpression}.
 *
 * @throws {@link InvalidExpressionError} for anything else.
 */
export function compileLocation(source: string, scope: ExpressionScope = {}): CompiledLocation {
  let ast: Node;
  try {
    ast = parse(source);
  } catch (error) {
    throw new InvalidExpressionError(source, `cannot parse location: ${(error as Error).message}.`, { cause: error });
  }
  const parts: ((args: ActionArgs<unknown>) => string | number)[] = [];
  let node = ast;
  while (node.type === 'MemberExpression') {
    const m = node as jsep.MemberExpression;
    if (m.computed) {
      const key = compileNode(m.property, source, scope);
      parts.unshift((args) => {
        const k = key(args);
        if (typeof k !== 'string' && typeof k !== 'number') throw new TypeError(`Invalid key ${String(k)} in location ${quote(source)}.`);
        return k;
      });
    } else {
      const name = (m.property as jsep.Identifier).name;
      parts.unshift(() => name);
    }
    node = m.object;
  }
  if (node.type !== 'Identifier') throw new InvalidExpressionError(source, 'a location must be a datamodel name, optionally followed by member accesses.');
  const root = (node as jsep.Identifier).name;
  for (const k of [root]) if (FORBIDDEN_KEYS.has(k)) throw new InvalidExpressionError(source, `${quote(k)} cannot be assigned.`);
  if (SYSTEM_VARIABLES.has(root))
    // SCXML 5.10: an attempt to change a system variable fails at run time with error.execution
    return () => {
      throw new TypeError(`Cannot assign to ${quote(root)}: system variables are read-only (SCXML 5.10).`);
    };
  if (root.startsWith('_')) throw new InvalidExpressionError(source, `${quote(root)} is reserved for the platform (names beginning with "_", SCXML 5.10) and not declared: use a datamodel name.`);
  return (args) => {
    const path = [root, ...parts.map((p) => p(args))];
    for (const k of path) if (FORBIDDEN_KEYS.has(String(k))) throw new TypeError(`${quote(String(k))} cannot be assigned.`);
    return path;
  };
}

/** Returns a copy of `root` with `value` at `path` (structural sharing; containers must exist). */
export function setIn(root: unknown, path: readonly (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (root === null || typeof root !== 'object') throw new TypeError(`Cannot assign ${quote(String(head))} on ${String(root)}.`);
  if (Array.isArray(root)) {
    const copy = [...root];
    copy[Number(head)] = setIn(copy[Number(head)], rest, value);
    return copy;
  }
  return { ...(root as object), [head]: setIn((root as Record<string, unknown>)[head], rest, value) };
}
