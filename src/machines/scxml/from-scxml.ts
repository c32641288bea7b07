import type { MachineAction } from '../actions.js';
import { defineMachine } from '../define-machine.js';
import { InvalidMachineError, ScxmlInvalidError, ScxmlUnsupportedError } from '../errors.js';
import type { MachineConfig, StateConfig, TransitionConfig } from '../machine-config.js';
import type { MachineDefinition } from '../machine-definition.js';
import type { ExpressionScope } from './expression.js';
import { compileBlock, contentValue, eventData, expr } from './scxml-content.js';
import { parseXmlTree, type XmlElement } from './xml-tree.js';
import { quote } from '../../internal/quote';

type Action = MachineAction<unknown>;
type MutableState = { -readonly [K in keyof StateConfig]: StateConfig[K] } & { states?: Record<string, StateConfig> };

const STATE_ELEMENTS = new Set(['state', 'parallel', 'final', 'history']);

/** Options of {@link fromSCXML}. */
export interface FromScxmlOptions {
  /** Machine name (default: the `<scxml name>` attribute, else `scxml`). `_name` stays the attribute (SCXML 5.10). */
  readonly name?: string;
  readonly invalidTransitions?: MachineConfig['invalidTransitions'];
}

/**
 * Imports an SCXML document as a machine definition. Supported: `<scxml>`, `<state>`,
 * `<parallel>`, `<final>`, `<history>`, `<initial>` and their attributes; `<transition>`
 * (`event`, `cond`, `target`, `type`); `<onentry>`/`<onexit>` with `<raise>`, `<log>`,
 * `<assign>`, `<if>`/`<elseif>`/`<else>`, `<foreach>`, `<send>` to the machine itself (no
 * target or `#_internal`; `event`/`eventexpr`, `delay`/`delayexpr`, `id`/`idlocation`,
 * `namelist`, `<param>`, `<content>`), `<cancel>`; a `<datamodel>` of `<data>` (early
 * binding; `expr`, inline JSON, or other inline text as a space-normalized string);
 * `<donedata>` (`<param>`s as an object, or `<content>`) as the `done.state.<id>` event data
 * (SCXML 5.7). Expressions (`cond`, `expr`, ...) are a safe ECMAScript subset evaluated by a
 * tree walker (see {@link compileExpression}); of the system variables (SCXML 5.10) it binds
 * `_event` (every field of 5.10.1), `_sessionid`, `_name` (the `name` attribute of `<scxml>`)
 * and `_ioprocessors` (the SCXML Event I/O Processor, rxslice's only one), and rejects any
 * other name beginning with `_`.
 *
 * @remarks All or nothing: the whole document is checked before a definition is returned.
 * The context is the datamodel (`{ [dataId]: value }`). Delays are ms on the actor's scheduler.
 * @throws {@link ScxmlUnsupportedError} (element, line, column) for `<script>`, `<invoke>`,
 * sends to other targets, late binding, `src` attributes, or an expression outside the subset
 * (including a name beginning with `_` that is not a system variable, such as `_x`).
 * @throws {@link ScxmlInvalidError} for malformed XML or invalid SCXML (unknown targets, duplicate ids, no `<scxml>` root).
 * @example
 * ```ts
 * const def = fromSCXML(`<scxml initial="a"><state id="a"><transition event="go" target="b"/></state><final id="b"/></scxml>`);
 * const actor = createMachineActor(def).start();
 * actor.send('go');
 * actor.snapshot().done; // true
 * ```
 */
export function fromSCXML(xml: string, options: FromScxmlOptions = {}): MachineDefinition<Record<string, unknown>, string, string> {
  const root = parseXmlTree(xml);
  if (root.name !== 'scxml') throw new ScxmlInvalidError(root.location, 'the root element must be <scxml>.');
  if (root.attrs.datamodel !== undefined && !['ecmascript', 'null'].includes(root.attrs.datamodel))
    throw new ScxmlUnsupportedError(root.location, `datamodel=${quote(root.attrs.datamodel)} is not supported; the safe ecmascript subset is.`);
  if (root.attrs.binding === 'late') throw new ScxmlUnsupportedError(root.location, 'binding="late" is not supported; use early binding.');

  const name = options.name ?? root.attrs.name ?? 'scxml';
  // SCXML 5.10: `_name` is bound at load time to the name attribute of <scxml> (not to options.name)
  const scope: ExpressionScope = { name: root.attrs.name };
  const ids = new Map<string, XmlElement>();
  const dataIds: string[] = [];
  const dataInit: Action[] = [];
  let generated = 0;
  const targetsOf = (el: XmlElement, attr = 'target'): string[] => (el.attrs[attr] ?? '').split(/\s+/).filter(Boolean);
  const pendingTargets: { el: XmlElement; targets: string[] }[] = [];

  const datamodel = (el: XmlElement) => {
    for (const data of el.children) {
      if (data.name !== 'data') throw new ScxmlInvalidError(data.location, `<${data.name}> is not allowed in <datamodel>.`);
      const id = data.attrs.id;
      if (!id) throw new ScxmlInvalidError(data.location, '<data> needs an id.');
      // SCXML 5.10: names beginning with "_" are reserved for system variables
      if (id.startsWith('_')) throw new ScxmlInvalidError(data.location, `<data id=${quote(id)}>: ids beginning with "_" are reserved for system variables (SCXML 5.10); rename it.`);
      if (data.attrs.src !== undefined) throw new ScxmlUnsupportedError(data.location, 'src is not supported: inline the data.');
      dataIds.push(id);
      const value = data.attrs.expr !== undefined ? expr(data, 'expr', scope) : data.text.length > 0 ? contentValue(data, scope) : undefined;
      if (value) dataInit.push({ kind: 'block', actions: [{ kind: 'assign', update: (args) => ({ [id]: value(args) }) }] });
    }
  };

  const transition = (el: XmlElement): TransitionConfig => {
    for (const a of ['eventexpr', 'targetexpr']) if (el.attrs[a] !== undefined) throw new ScxmlUnsupportedError(el.location, `${a} is not supported.`);
    const type = el.attrs.type;
    if (type !== undefined && type !== 'internal' && type !== 'external') throw new ScxmlInvalidError(el.location, `type must be "internal" or "external", got ${quote(type)}.`);
    const targets = targetsOf(el);
    pendingTargets.push({ el, targets });
    const cond = el.attrs.cond !== undefined ? expr(el, 'cond', scope) : undefined;
    return {
      ...(el.attrs.event !== undefined ? { event: el.attrs.event } : {}),
      ...(targets.length > 0 ? { target: targets } : {}),
      ...(cond ? { guard: (args) => Boolean(cond(args)), guardLabel: el.attrs.cond! } : {}),
      ...(type ? { type } : {}),
      actions: compileBlock(el, scope),
    };
  };

  const state = (el: XmlElement, parentStates: Record<string, StateConfig>): void => {
    let id = el.attrs.id;
    if (id === undefined) id = `$generated-${el.name}-${generated++}`;
    if (ids.has(id)) throw new ScxmlInvalidError(el.location, `duplicate state id ${quote(id)}.`);
    ids.set(id, el);
    const cfg: MutableState = {};
    if (el.name === 'parallel') cfg.type = 'parallel';
    if (el.name === 'final') cfg.type = 'final';
    const entry: Action[][] = [];
    const exit: Action[][] = [];
    const transitions: TransitionConfig[] = [];
    const children: Record<string, StateConfig> = {};
    if (el.name === 'history') {
      cfg.type = 'history';
      const kind = el.attrs.type ?? 'shallow';
      if (kind !== 'shallow' && kind !== 'deep') throw new ScxmlInvalidError(el.location, `history type must be "shallow" or "deep", got ${quote(kind)}.`);
      cfg.history = kind;
      const t = el.children.find((c) => c.name === 'transition');
      if (t) {
        const targets = targetsOf(t);
        pendingTargets.push({ el: t, targets });
        cfg.target = targets;
        cfg.defaultActions = compileBlock(t, scope);
      }
      parentStates[id] = cfg;
      return;
    }
    parentStates[id] = cfg;
    for (const child of el.children) {
      switch (child.name) {
        case 'onentry':
          entry.push(compileBlock(child, scope));
          break;
        case 'onexit':
          exit.push(compileBlock(child, scope));
          break;
        case 'transition':
          if (el.name === 'final') throw new ScxmlInvalidError(child.location, '<final> cannot have transitions.');
          transitions.push(transition(child));
          break;
        case 'initial': {
          const t = child.children.find((c) => c.name === 'transition');
          if (!t) throw new ScxmlInvalidError(child.location, '<initial> needs a <transition>.');
          const targets = targetsOf(t);
          pendingTargets.push({ el: t, targets });
          cfg.initial = { target: targets, actions: compileBlock(t, scope) };
          break;
        }
        case 'datamodel':
          datamodel(child);
          break;
        case 'donedata': {
          const data = eventData(child, scope);
          if (data) cfg.output = data;
          break;
        }
        case 'invoke':
          throw new ScxmlUnsupportedError(child.location, '<invoke> is not supported.');
        default:
          if (STATE_ELEMENTS.has(child.name)) state(child, children);
          else throw new ScxmlUnsupportedError(child.location, `<${child.name}> is not supported inside <${el.name}>.`);
      }
    }
    if (el.attrs.initial !== undefined) {
      if (cfg.initial !== undefined) throw new ScxmlInvalidError(el.location, 'a state cannot have both an initial attribute and an <initial> element.');
      cfg.initial = targetsOf(el, 'initial');
      pendingTargets.push({ el, targets: targetsOf(el, 'initial') });
    }
    if (Object.keys(children).length > 0) {
      cfg.states = children;
      if (el.name === 'state') cfg.type = 'compound';
    }
    if (entry.length > 0) cfg.entry = entry;
    if (exit.length > 0) cfg.exit = exit;
    if (transitions.length > 0) cfg.transitions = transitions;
  };

  const topStates: Record<string, StateConfig> = {};
  for (const child of root.children) {
    if (STATE_ELEMENTS.has(child.name) && child.name !== 'history') state(child, topStates);
    else if (child.name === 'datamodel') datamodel(child);
    else throw new ScxmlUnsupportedError(child.location, `<${child.name}> is not supported inside <scxml>.`);
  }
  for (const { el, targets } of pendingTargets)
    for (const t of targets) if (!ids.has(t)) throw new ScxmlInvalidError(el.location, `target ${quote(t)} names no state.`);
  const initial = targetsOf(root, 'initial');
  for (const t of initial) if (!ids.has(t)) throw new ScxmlInvalidError(root.location, `initial ${quote(t)} names no state.`);

  const config: MachineConfig<Record<string, unknown>, string> = {
    context: () => Object.fromEntries(dataIds.map((id) => [id, undefined])),
    states: topStates,
    ...(initial.length > 0 ? { initial } : {}),
    startActions: dataInit,
    invalidTransitions: options.invalidTransitions ?? 'ignore',
  };
  try {
    return defineMachine(name, config as never) as unknown as MachineDefinition<Record<string, unknown>, string, string>;
  } catch (error) {
    if (error instanceof InvalidMachineError) throw new ScxmlInvalidError(root.location, error.message, { cause: error });
    throw error;
  }
}
