import { describe, expect, it } from 'vitest';
import { compileFixture } from '../types/compile-fixture';

/**
 * Pins the text of the compile error of an `on` key outside a machine's declared events: it names
 * the key and the declared events (it used to be `Type 'string' is not assignable to type 'never'`).
 * The fixture is type-checked with the TypeScript compiler API under the repository's tsconfig.
 */
const fixture = `
import { z } from 'zod';
import { defineEvent } from '../../src/events/define-event';
import { defineMachine, setupMachine } from '../../src/machines/index';

const Started = defineEvent('timer/started', z.object({}));
const Stopped = defineEvent('timer/stopped', z.object({}));

export const Typo = setupMachine({ events: [Started, Stopped] }).defineMachine('timer', {
  initial: 'idle',
  states: {
    idle: { on: { 'timer/startd': 'running' } },
    running: { on: { 'timer/stopped': 'idle' }, initial: 'inner', states: { inner: { on: { 'timer/pausd': { target: 'idle' } } } } },
  },
});

export const Inline = defineMachine('timer', {
  events: [Stopped, Started],
  initial: 'idle',
  states: {
    idle: { on: { 'timer/startd': ['running'] } },
    running: { on: { 'timer/stopped': 'idle' } },
  },
});

export const Correct = setupMachine({ events: [Started, Stopped] }).defineMachine('timer', {
  initial: 'idle',
  states: {
    idle: { on: { 'timer/started': 'running', 'done.state.idle': 'idle', 'error.*': 'idle' } },
    running: { on: { 'timer/stopped': { target: 'idle' } } },
  },
});
`;

const diagnostics = () => compileFixture('test/machines/unknown-event-fixture.ts', fixture);

const lineOf = (snippet: string): number => fixture.split('\n').findIndex((l) => l.includes(snippet));
const message = (key: string, declared: string) =>
  `Unknown event '${key}': the declared events are ${declared} (add its creator to events, or fix the key)`;

describe('an on key outside the declared events', () => {
  it('is a compile error naming the key and the declared events (string, object and list targets, nested states)', () => {
    const found = diagnostics();
    expect(found.map((d) => d.line)).toEqual([lineOf("'timer/startd': 'running'"), lineOf("'timer/pausd'"), lineOf("'timer/startd': ['running']")]);
    const [stringTarget, objectTarget, listTarget] = found.map((d) => d.text);
    expect(stringTarget).toBe(
      `Type '"running"' is not assignable to type '"running" & { readonly "${message('timer/startd', "'timer/started', 'timer/stopped'")}": never; }'.\n` +
        `  Type 'string' is not assignable to type '{ readonly "${message('timer/startd', "'timer/started', 'timer/stopped'")}": never; }'.`,
    );
    expect(objectTarget).toContain(`Property '"${message('timer/pausd', "'timer/started', 'timer/stopped'")}"' is missing`);
    // The events in the order they were declared.
    expect(listTarget).toContain(message('timer/startd', "'timer/stopped', 'timer/started'"));
    expect(found.map((d) => d.text).join('\n')).not.toContain("not assignable to type 'never'");
  }, 120_000);
});
