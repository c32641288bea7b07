import type { MachineDefinition } from './machine-definition.js';
import type { StateNode, TransitionNode } from './state-node.js';
import { clip } from '../internal/quote';

const safeId = (id: string): string => id.replace(/[^A-Za-z0-9_]/g, '_');
const INDENT = '    ';

/** `name [guard]` for a named transition, else `event [guard]` (the seed's `request_review [all_steps_done]`). */
const label = (t: TransitionNode): string => {
  const parts: string[] = [];
  if (t.name !== undefined) parts.push(t.name.replace(/[:;\n]/g, ' '));
  else if (t.events.length > 0) parts.push(t.events.join(' '));
  // An anonymous guard's label names its transition (`guard of "e" in [s]`), which the arrow shows already.
  if (t.guardLabel !== undefined) parts.push(`[${t.guardLabel.startsWith('guard of ') ? 'guard' : t.guardLabel.replace(/[:;\n]/g, ' ')}]`);
  if (t.type === 'internal' && t.targets.length > 0) parts.push('(internal)');
  return parts.join(' ');
};

/**
 * A targetless transition (SCXML 3.13: it runs its content and exits and enters nothing) is
 * not drawn as an arrow: a self-loop would read as an external self-transition, which exits
 * and re-enters the state. It becomes a line of a note beside its state instead.
 */
const targetlessNote = (s: StateNode, indent: string): string[] => {
  const lines = s.transitions
    .filter((t) => t.targets.length === 0)
    // Mermaid ends a note block at the first "end note", wherever it is
    .map((t) => `${indent}${INDENT}targetless: ${(label(t) || '(eventless)').replace(/end(\s+)note/gi, 'end_note')}`);
  return lines.length === 0 ? [] : [`${indent}note right of ${safeId(s.id)}`, ...lines, `${indent}end note`];
};

/** Options of {@link toMermaid}. */
export interface ToMermaidOptions {
  /**
   * Where targetless transitions go: `'note'` (default) lists them in a note beside their state;
   * `'omit'` leaves them out of the diagram, for a viewer that lists them itself (the inspector
   * page does, from {@link targetlessTransitions}: notes inside compound states are not drawn by
   * mermaid's ELK layout, and dagre floats them beside the chart).
   */
  readonly targetless?: 'note' | 'omit';
}

/** One targetless transition of a machine, as {@link toMermaid} labels it. */
export interface TargetlessTransition {
  /** The id of the state the transition is written on. */
  readonly state: string;
  /** `name [guard]` or `event [guard]`, as the diagram's arrows are labelled; `(eventless)` for an eventless one. */
  readonly label: string;
}

/**
 * The targetless transitions of a machine (SCXML 3.13: they run their content and leave the
 * configuration as it is), in document order of their states, then in the order written.
 *
 * @remarks Synchronous and pure.
 * @example
 * ```ts
 * targetlessTransitions(AgentPhases); // [{ state: 'transcript', label: 'transcript/toolSucceeded transcript/toolFailed' }, ...]
 * ```
 */
export function targetlessTransitions(def: MachineDefinition<unknown, string, string>): TargetlessTransition[] {
  return [...def.states.values()].flatMap((s) => s.transitions.filter((t) => t.targets.length === 0).map((t) => ({ state: s.id, label: label(t) || '(eventless)' })));
}

/**
 * Renders a machine as a Mermaid `stateDiagram-v2`, in the layout of the seed's diagram:
 * `[*] --> initial` first, then one arrow per transition and target in the order the
 * transitions were written (a transition written with `from: [...]` gives one arrow per source
 * state, in `from` order), then `final --> [*]` for the machine's final states. Arrows are
 * labelled with the transition's `name`, else its event descriptors, then `[guard]`.
 *
 * @remarks Compound states nest in `state x { ... }` blocks (with their own `[*]` arrows),
 * parallel regions are separated by `--`, history states show as `H` / `H*` with an arrow to
 * their default. A state is declared on a line of its own only where an arrow would not place
 * it: inside its parent's block, or at the top level when no arrow names it or a note about it
 * comes first. Targetless
 * transitions, which leave the configuration unchanged (SCXML 3.13), are listed in a note beside
 * their state (`targetless: event [guard]`) rather than drawn as self-loops, which would read as
 * external self-transitions. Ids that are not plain identifiers are declared with
 * `state "id" as safe_id`. Synchronous and pure; indentation is four spaces per level.
 * `options.targetless: 'omit'` leaves the notes out (see {@link ToMermaidOptions}).
 * @example
 * ```ts
 * console.log(toMermaid(AgentPhase)); // the seed's AgentPhase, written with named transitions
 * // stateDiagram-v2
 * //     [*] --> idle
 * //     idle --> planning: start_planning
 * //     planning --> executing: begin_execution
 * //     executing --> reviewing: request_review [all_steps_done]
 * //     reviewing --> complete: approve
 * //     reviewing --> executing: request_changes
 * //     planning --> failed: abort
 * //     executing --> failed: abort
 * //     reviewing --> failed: abort
 * //     complete --> [*]
 * //     failed --> [*]
 * ```
 */
export function toMermaid(def: MachineDefinition<unknown, string, string>, options: ToMermaidOptions = {}): string {
  const targetless = options.targetless ?? 'note';
  if (targetless !== 'note' && targetless !== 'omit') throw new TypeError(`toMermaid: options.targetless must be 'note' or 'omit', got ${clip(JSON.stringify(targetless))}`);
  const notes = targetless === 'note';
  const transitions = [...def.states.values()].flatMap((s) => s.transitions).sort((a, b) => a.order - b.order);
  const arrows: string[] = [];
  const named = new Set<StateNode>();
  const arrow = (from: StateNode, to: StateNode, text: string) => {
    named.add(from).add(to);
    arrows.push(`${INDENT}${safeId(from.id)} --> ${safeId(to.id)}${text ? `: ${text}` : ''}`);
  };
  for (const h of def.states.values()) for (const t of h.kind === 'history' ? (h.historyDefault?.targets ?? []) : []) arrow(h, t, '');
  for (const t of transitions) {
    const text = label(t);
    for (const target of t.targets) arrow(t.source, target, text);
  }
  const root = def.root;
  const finals: string[] = [];
  const lines = ['stateDiagram-v2'];
  const declare = (s: StateNode, indent: string) => {
    if (s.kind === 'history') lines.push(`${indent}state "${s.historyType === 'deep' ? 'H*' : 'H'}" as ${safeId(s.id)}`);
    else if (safeId(s.id) !== s.id) lines.push(`${indent}state "${s.id}" as ${safeId(s.id)}`);
    // Mermaid binds a state to the block where it first appears: declare atomic and final
    // states inside their parent's block so that nesting survives top-level arrows. At the top
    // level, an arrow places a state already, unless a note about it comes first.
    else if ((s.kind === 'atomic' || s.kind === 'final') && (s.parent !== root || !named.has(s) || (notes && s.transitions.some((t) => t.targets.length === 0))))
      lines.push(`${indent}${s.id}`);
  };
  const body = (parent: StateNode, indent: string) => {
    if (parent.initial) {
      for (const t of parent.initial.targets) {
        if (t.parent !== parent) continue;
        named.add(t);
        lines.push(`${indent}[*] --> ${safeId(t.id)}`);
      }
    }
    for (const h of parent.history) declare(h, indent);
    parent.children.forEach((s, i) => {
      if (parent.kind === 'parallel' && i > 0) lines.push(`${indent}--`);
      if (s.kind === 'final' && parent === root) named.add(s);
      declare(s, indent);
      if (s.kind === 'compound' || s.kind === 'parallel') {
        lines.push(`${indent}state ${safeId(s.id)} {`);
        body(s, `${indent}${INDENT}`);
        lines.push(`${indent}}`);
      }
      if (s.kind === 'final') (parent === root ? finals : lines).push(`${indent}${safeId(s.id)} --> [*]`);
      if (notes) lines.push(...targetlessNote(s, indent));
    });
  };
  body(root, INDENT);
  return [...lines, ...arrows, ...finals].join('\n');
}
