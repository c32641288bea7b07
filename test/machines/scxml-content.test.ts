import { describe, expect, it } from 'vitest';
import { advanceTime, defineMachine, initialTransition, transition } from '../../src/machines/index.js';
import { fromSCXML } from '../../src/scxml/index.js';

/** The SCXML executable content and transition attributes not covered by from-scxml.test.ts. */
const doc = (body: string) => `<?xml version="1.0"?>
<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript" initial="idle">
${body}
</scxml>`;

describe('fromSCXML: executable content', () => {
  it('<log> with label and expr, and if/elseif/else choosing the first true branch', () => {
    const def = fromSCXML(
      doc(`  <datamodel><data id="n" expr="0"/></datamodel>
  <state id="idle">
    <transition event="set" target="idle">
      <assign location="n" expr="_event.data.n"/>
      <if cond="n &gt; 10"><log label="size" expr="'big'"/>
      <elseif cond="n &gt; 5"/><log label="size" expr="'medium'"/>
      <else/><log label="size" expr="'small ' + n"/></if>
    </transition>
  </state>`),
    );
    const start = initialTransition(def).snapshot;
    const logOf = (n: number) => transition(def, start, { type: 'set', payload: { n } }).logs;
    expect(logOf(20)).toEqual([{ label: 'size', value: 'big' }]);
    expect(logOf(7)).toEqual([{ label: 'size', value: 'medium' }]);
    expect(logOf(2)).toEqual([{ label: 'size', value: 'small 2' }]);
  });

  it('<send> to self with a delay fires on time; <cancel> by sendid removes it', () => {
    const def = fromSCXML(
      doc(`  <state id="idle">
    <onentry><send event="timeout" delay="2s" id="t"/></onentry>
    <transition event="timeout" target="late"/>
    <transition event="done"><cancel sendid="t"/></transition>
  </state>
  <state id="late"/>`),
    );
    const start = initialTransition(def, { nowMs: 0 }).snapshot;
    expect(start.delayed.map((d) => [d.sendId, d.dueAtMs])).toEqual([['t', 2000]]);
    expect(advanceTime(def, start, 1999).snapshot.configuration).toEqual(['idle']);
    expect(advanceTime(def, start, 2000).snapshot.configuration).toEqual(['late']);
    const cancelled = transition(def, start, 'done', { nowMs: 500 });
    expect(cancelled.cancelled).toEqual(['t']);
    expect(advanceTime(def, cancelled.snapshot, 5000).snapshot.configuration).toEqual(['idle']);
  });
});

describe('transitions with several targets (SCXML 3.13)', () => {
  it('enters one state in each parallel region from a TypeScript definition', () => {
    const m = defineMachine('multi', {
      initial: 'off',
      states: {
        off: { on: { go: { target: ['a2', 'b2'] } } },
        p: {
          type: 'parallel',
          states: {
            a: { initial: 'a1', states: { a1: {}, a2: {} } },
            b: { initial: 'b1', states: { b1: {}, b2: {} } },
          },
        },
      },
    });
    const next = transition(m, initialTransition(m).snapshot, 'go').snapshot;
    expect(next.basicConfiguration).toEqual(['a2', 'b2']);
    expect(next.configuration).toEqual(['p', 'a', 'a2', 'b', 'b2']);
  });

  it('and from an SCXML target list', () => {
    const def = fromSCXML(
      doc(`  <state id="idle"><transition event="go" target="x2 y2"/></state>
  <parallel id="p">
    <state id="x"><state id="x1"/><state id="x2"/></state>
    <state id="y"><state id="y1"/><state id="y2"/></state>
  </parallel>`),
    );
    expect(transition(def, initialTransition(def).snapshot, 'go').snapshot.basicConfiguration).toEqual(['x2', 'y2']);
  });
});
