import type { ActionArgs, MachineAction } from '../actions.js';
import { InvalidExpressionError, ScxmlInvalidError, ScxmlUnsupportedError } from '../errors.js';
import { compileExpression, compileLocation, SCXML_EVENT_PROCESSOR_TYPE, setIn, type CompiledExpression, type ExpressionScope } from './expression.js';
import type { XmlElement } from './xml-tree.js';
import { messageOf, quote } from '../../internal/quote';

type Ctx = Record<string, unknown>;
type Action = MachineAction<unknown>;

const SCXML_EVENT_PROCESSOR = new Set([SCXML_EVENT_PROCESSOR_TYPE, 'scxml']);

/** Compiles an expression attribute, reporting errors at the element. */
export function expr(el: XmlElement, attr: string, scope: ExpressionScope, source = el.attrs[attr]): CompiledExpression {
  try {
    return compileExpression(source ?? '', scope);
  } catch (error) {
    if (error instanceof InvalidExpressionError)
      throw new ScxmlUnsupportedError(el.location, `${attr}=${quote(source)} is not supported: ${messageOf(error)}`, { cause: error });
    throw error;
  }
}

function location(el: XmlElement, attr: string, scope: ExpressionScope) {
  try {
    return compileLocation(el.attrs[attr] ?? '', scope);
  } catch (error) {
    throw new ScxmlUnsupportedError(el.location, `${attr}=${quote(el.attrs[attr])} is not a supported location: ${(error as Error).message}`, { cause: error });
  }
}

/** Writes `value` at a location; the root name must be declared in the datamodel (SCXML 5.4). */
export function assignAt(args: ActionArgs<unknown>, path: readonly (string | number)[], value: unknown): Ctx {
  const ctx = (args.context ?? {}) as Ctx;
  const root = String(path[0]);
  if (!Object.prototype.hasOwnProperty.call(ctx, root)) throw new ReferenceError(`Cannot assign to ${quote(root)}: it is not declared in the datamodel.`);
  return { [root]: setIn(ctx[root], path.slice(1), value) };
}

/**
 * The value of inline content (`<content>`, `<data>` or `<assign>` children) in the ECMAScript
 * data model: JSON text becomes the corresponding value, any other text a space-normalized
 * string (SCXML B.2.2, B.2.3). Inline text is never evaluated as an expression: that is
 * what `expr` is for (SCXML 5.6).
 */
export function contentValue(el: XmlElement, scope: ExpressionScope): CompiledExpression {
  if (el.attrs.expr !== undefined) return expr(el, 'expr', scope);
  if (el.children.length > 0) throw new ScxmlUnsupportedError(el.location, 'XML content is not supported; use JSON text or an expr.');
  const text = el.text;
  try {
    const value: unknown = JSON.parse(text);
    return () => structuredClone(value);
  } catch {
    const normalized = text.replace(/\s+/g, ' ').trim();
    return () => normalized;
  }
}

/** The data of a send or donedata: `<content>`, or an object of `namelist` and `<param>` values. */
export function eventData(el: XmlElement, scope: ExpressionScope): CompiledExpression | undefined {
  const content = el.children.find((c) => c.name === 'content');
  const params = el.children.filter((c) => c.name === 'param');
  const names = (el.attrs.namelist ?? '').split(/\s+/).filter(Boolean);
  if (content) {
    if (params.length > 0 || names.length > 0) throw new ScxmlInvalidError(el.location, '<content> cannot be combined with <param> or namelist.');
    return contentValue(content, scope);
  }
  if (params.length === 0 && names.length === 0) return undefined;
  const parts: [string, CompiledExpression][] = names.map((n) => [n, expr(el, 'namelist', scope, n)]);
  for (const p of params) {
    const name = p.attrs.name ?? '';
    if (p.attrs.expr !== undefined) parts.push([name, expr(p, 'expr', scope)]);
    else if (p.attrs.location !== undefined) parts.push([name, expr(p, 'location', scope)]);
    else throw new ScxmlInvalidError(p.location, '<param> needs expr or location.');
  }
  return (args) => Object.fromEntries(parts.map(([k, f]) => [k, f(args)]));
}

const delayMs = (text: string): number => {
  const m = /^\s*(\d*\.?\d+)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!m) throw new TypeError(`Invalid delay ${quote(text)}: expected e.g. "500ms" or "2s".`);
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 'ms') as 'ms'];
  return Number(m[1]) * factor;
};

function compileSend(el: XmlElement, scope: ExpressionScope): Action {
  const a = el.attrs;
  for (const attr of ['targetexpr', 'typeexpr']) if (a[attr] !== undefined) throw new ScxmlUnsupportedError(el.location, `${attr} is not supported: only sends to the machine itself are.`);
  const internal = a.target === '#_internal';
  // #_scxml_<sessionid> names another session (W3C: error.communication when unreachable), never this one: reject it too
  if (a.target !== undefined && !internal) throw new ScxmlUnsupportedError(el.location, `target=${quote(a.target)} is not supported: only sends to the machine itself (no target, or #_internal) are.`);
  if (a.type !== undefined && !SCXML_EVENT_PROCESSOR.has(a.type)) throw new ScxmlUnsupportedError(el.location, `type=${quote(a.type)} is not supported: only the SCXML event processor is.`);
  if (a.event === undefined && a.eventexpr === undefined) throw new ScxmlInvalidError(el.location, '<send> needs event or eventexpr.');
  const name: CompiledExpression = a.event !== undefined ? () => a.event : expr(el, 'eventexpr', scope);
  const data = eventData(el, scope);
  const delay: ((args: ActionArgs<unknown>) => number) | undefined =
    a.delay !== undefined ? () => delayMs(a.delay!) : a.delayexpr !== undefined ? ((f) => (args: ActionArgs<unknown>) => delayMs(String(f(args))))(expr(el, 'delayexpr', scope)) : undefined;
  const idLocation = a.idlocation !== undefined ? location(el, 'idlocation', scope) : undefined;
  const event = (args: ActionArgs<unknown>) => {
    const payload = data?.(args);
    return { type: String(name(args)), ...(payload !== undefined ? { payload } : {}) };
  };
  if (internal) {
    if (delay) throw new ScxmlUnsupportedError(el.location, 'a delayed send to #_internal is not supported.');
    return { kind: 'raise', event };
  }
  return {
    kind: 'send',
    event,
    ...(delay ? { delayMs: delay } : {}),
    ...(a.id !== undefined ? { id: a.id } : {}),
    ...(idLocation ? { storeId: (args: ActionArgs<unknown>, id: string) => assignAt(args, idLocation(args), id) } : {}),
  };
}

function compileIf(el: XmlElement, scope: ExpressionScope): Action {
  const branches: { cond: CompiledExpression | undefined; actions: Action[] }[] = [{ cond: expr(el, 'cond', scope), actions: [] }];
  for (const child of el.children) {
    if (child.name === 'elseif') branches.push({ cond: expr(child, 'cond', scope), actions: [] });
    else if (child.name === 'else') branches.push({ cond: undefined, actions: [] });
    else branches.at(-1)!.actions.push(compileAction(child, scope));
  }
  return (args) => branches.find((b) => b.cond === undefined || Boolean(b.cond(args)))?.actions;
}

function compileForeach(el: XmlElement, scope: ExpressionScope): Action {
  const array = expr(el, 'array', scope);
  const item = location(el, 'item', scope);
  const index = el.attrs.index !== undefined ? location(el, 'index', scope) : undefined;
  const body = el.children.map((child) => compileAction(child, scope));
  return (args) => {
    const values = array(args);
    if (!Array.isArray(values)) throw new TypeError(`<foreach> array ${quote(el.attrs.array)} is not an array.`);
    const actions: Action[] = [];
    values.forEach((value, i) => {
      actions.push({ kind: 'assign', update: (a) => ({ ...assignDeclaring(a, item(a), value) }) });
      if (index) actions.push({ kind: 'assign', update: (a) => ({ ...assignDeclaring(a, index(a), i) }) });
      actions.push(...body);
    });
    return actions;
  };
}

/** Like {@link assignAt} but declares a new top-level name (foreach `item`/`index`). */
function assignDeclaring(args: ActionArgs<unknown>, path: readonly (string | number)[], value: unknown): Ctx {
  const ctx = (args.context ?? {}) as Ctx;
  return path.length === 1 ? { [String(path[0])]: value } : assignAt({ ...args, context: ctx }, path, value);
}

/** Compiles one element of executable content (SCXML 4.2–4.6, 5.4, 6.2, 6.3). */
export function compileAction(el: XmlElement, scope: ExpressionScope): Action {
  switch (el.name) {
    case 'raise':
      if (el.attrs.event === undefined) throw new ScxmlInvalidError(el.location, '<raise> needs an event attribute.');
      return { kind: 'raise', event: { type: el.attrs.event } };
    case 'log': {
      const value = el.attrs.expr !== undefined ? expr(el, 'expr', scope) : () => undefined;
      return { kind: 'log', label: el.attrs.label, value };
    }
    case 'assign': {
      if (el.attrs.location === undefined) throw new ScxmlInvalidError(el.location, '<assign> needs a location.');
      const loc = location(el, 'location', scope);
      const value = el.attrs.expr !== undefined ? expr(el, 'expr', scope) : contentValue(el, scope);
      return { kind: 'assign', update: (args) => assignAt(args, loc(args), value(args)) };
    }
    case 'if':
      return compileIf(el, scope);
    case 'send':
      return compileSend(el, scope);
    case 'cancel': {
      if (el.attrs.sendid !== undefined) return { kind: 'cancel', sendId: el.attrs.sendid };
      if (el.attrs.sendidexpr !== undefined) {
        const f = expr(el, 'sendidexpr', scope);
        return { kind: 'cancel', sendId: (args) => String(f(args)) };
      }
      throw new ScxmlInvalidError(el.location, '<cancel> needs sendid or sendidexpr.');
    }
    case 'foreach':
      return compileForeach(el, scope);
    default:
      throw new ScxmlUnsupportedError(el.location, `<${el.name}> is not supported executable content.`);
  }
}

/** Compiles the children of an `<onentry>`, `<onexit>` or `<transition>` as one block. */
export function compileBlock(el: XmlElement, scope: ExpressionScope): Action[] {
  return el.children.map((child) => compileAction(child, scope));
}
