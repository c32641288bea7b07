import type { MachineDefinition } from './machine-definition.js';
import type { StateNode, TransitionNode } from './state-node.js';

const safeId = (id: string): string => id.replace(/[^A-Za-z0-9_]/g, '_');
const label = (t: TransitionNode): string => {
  const parts: string[] = [];
  if (t.events.length > 0) parts.push(t.events.join(' '));
  if (t.guardLabel !== undefined) parts.push(`[${t.guardLabel.replace(/[:;\n]/g, ' ')}]`);
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
    .map((t) => `${indent}  targetless: ${(label(t) || '(eventless)').replace(/end(\s+)note/gi, 'end_note')}`);
  return lines.length === 0 ? [] : [`${indent}note right of ${safeId(s.id)}`, ...lines, `${indent}end note`];
};

/**
 * Renders a machine as a Mermaid `stateDiagram-v2`: compound states nest, parallel regions
 * are separated by `--`, `[*] -->` marks initial states, final states lead to `[*]`,
 * history states show as `H` / `H*`, and transitions are labelled `event [guard]`. Targetless
 * transitions, which leave the configuration unchanged (SCXML 3.13), are listed in a note beside
 * their state (`targetless: event [guard]`) rather than drawn as self-loops, which would read as
 * external self-transitions.
 *
 * @remarks Synchronous and pure. Ids that are not plain identifiers are declared with
 * `state "id" as safe_id`.
 * @example
 * ```ts
 * console.log(toMermaid(Light));
 * // stateDiagram-v2
 * //   [*] --> green
 * //   green --> yellow : timer/elapsed
 * //   ...
 * ```
 */
export function toMermaid(def: MachineDefinition<unknown, string, string>): string {
  const lines = ['stateDiagram-v2'];
  const arrows: string[] = [];
  const declare = (s: StateNode, indent: string) => {
    if (s.kind === 'history') lines.push(`${indent}state "${s.historyType === 'deep' ? 'H*' : 'H'}" as ${safeId(s.id)}`);
    else if (safeId(s.id) !== s.id) lines.push(`${indent}state "${s.id}" as ${safeId(s.id)}`);
    // Mermaid binds a state to the block where it first appears: declare atomic and final
    // states inside their parent's block so that nesting survives top-level arrows.
    else if (s.kind === 'atomic' || s.kind === 'final') lines.push(`${indent}${s.id}`);
  };
  const body = (parent: StateNode, indent: string) => {
    if (parent.initial) for (const t of parent.initial.targets) if (t.parent === parent) lines.push(`${indent}[*] --> ${safeId(t.id)}`);
    for (const h of parent.history) declare(h, indent);
    parent.children.forEach((s, i) => {
      if (parent.kind === 'parallel' && i > 0) lines.push(`${indent}--`);
      declare(s, indent);
      if (s.kind === 'compound' || s.kind === 'parallel') {
        lines.push(`${indent}state ${safeId(s.id)} {`);
        body(s, `${indent}  `);
        lines.push(`${indent}}`);
      }
      if (s.kind === 'final') lines.push(`${indent}${safeId(s.id)} --> [*]`);
      lines.push(...targetlessNote(s, indent));
    });
    for (const h of parent.history) {
      for (const t of h.historyDefault?.targets ?? []) arrows.push(`  ${safeId(h.id)} --> ${safeId(t.id)}`);
    }
  };
  body(def.root, '  ');
  for (const s of def.states.values()) {
    for (const t of s.transitions) {
      const text = label(t);
      for (const target of t.targets) arrows.push(`  ${safeId(s.id)} --> ${safeId(target.id)}${text ? ` : ${text}` : ''}`);
    }
  }
  return [...lines, ...arrows].join('\n');
}
