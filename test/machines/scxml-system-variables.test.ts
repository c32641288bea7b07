import { describe, expect, it } from 'vitest';
import { advanceTime, initialTransition, transition } from '../../src/machines/index.js';
import { compileExpression, fromSCXML, ScxmlInvalidError, ScxmlUnsupportedError } from '../../src/scxml/index.js';

/** SCXML 5.10 system variables (`_event` fields, `_name`, `_ioprocessors`, reserved `_` names) and 5.7 `<donedata>`. */
const doc = (body: string, attrs = '') => `<?xml version="1.0"?>
<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript" initial="s0"${attrs}>
${body}
</scxml>`;
const SCXML_TYPE = 'http://www.w3.org/TR/scxml/#SCXMLEventProcessor';

/** A machine that records `_event.<field>` of every event it takes into `seen`. */
const recorder = (onentry: string) =>
  fromSCXML(
    doc(`  <datamodel><data id="seen" expr="[]"/><data id="i" expr="0"/><data id="sid"/></datamodel>
  <state id="s0">
    <onentry>${onentry}</onentry>
    <transition event="*">
      <assign location="seen[i]" expr="[_event.name, _event.type, _event.sendid, _event.origin, _event.origintype, _event.invokeid]"/>
      <assign location="i" expr="i + 1"/>
    </transition>
  </state>`),
  );

describe('_event fields (SCXML 5.10.1)', () => {
  it('an event sent with <send> names the SCXML Event I/O Processor as origintype and this session as origin', () => {
    const def = recorder(`<send event="named" id="n1"/><send event="anonymous"/><send event="typed" type="${SCXML_TYPE}"/><raise event="raised"/>`);
    const seen = initialTransition(def).snapshot.context.seen as unknown[][];
    expect(seen).toEqual([
      ['raised', 'internal', undefined, undefined, undefined, undefined],
      ['named', 'external', 'n1', '#_scxml_rxslice', SCXML_TYPE, undefined],
      // no id on the <send>: sendid stays blank (the engine's generated id is bookkeeping only)
      ['anonymous', 'external', undefined, '#_scxml_rxslice', SCXML_TYPE, undefined],
      ['typed', 'external', undefined, '#_scxml_rxslice', SCXML_TYPE, undefined],
    ]);
  });

  it('a send with idlocation reports the generated id it stored as sendid', () => {
    const def = recorder(`<send event="e" idlocation="sid"/>`);
    const { context } = initialTransition(def).snapshot;
    expect(context.sid).toMatch(/^send\.\d+$/);
    expect((context.seen as unknown[][])[0]?.[2]).toBe(context.sid);
  });

  it('a delayed send keeps origin, origintype and sendid when it fires', () => {
    const def = recorder(`<send event="late" delay="1s" id="t"/><send event="lateAnonymous" delay="2s"/>`);
    const fired = advanceTime(def, initialTransition(def, { nowMs: 0 }).snapshot, 2000).snapshot;
    expect(fired.context.seen).toEqual([
      ['late', 'external', 't', '#_scxml_rxslice', SCXML_TYPE, undefined],
      ['lateAnonymous', 'external', undefined, '#_scxml_rxslice', SCXML_TYPE, undefined],
    ]);
  });

  it('an event from the host leaves origin, origintype and sendid blank (it did not come through an I/O processor)', () => {
    const def = recorder('');
    const next = transition(def, initialTransition(def).snapshot, 'fromHost').snapshot;
    expect(next.context.seen).toEqual([['fromHost', 'external', undefined, undefined, undefined, undefined]]);
  });
});

describe('_event is bound once per event (SCXML 5.10)', () => {
  it('a copy stored in the datamodel equals it while that event is processed, and is read-only (W3C IRP test 329)', () => {
    const def = fromSCXML(
      doc(`  <datamodel><data id="copy"/><data id="same"/><data id="frozen"/></datamodel>
  <state id="s0">
    <transition event="go" target="s1"><assign location="copy" expr="_event"/></transition>
  </state>
  <state id="s1">
    <onentry><assign location="same" expr="copy == _event"/></onentry>
    <transition event="again" target="s2"/>
  </state>
  <state id="s2"><onentry><assign location="frozen" expr="copy == _event"/></onentry></state>`),
    );
    const first = transition(def, initialTransition(def).snapshot, 'go').snapshot;
    expect(first.context.same).toBe(true);
    expect(Object.isFrozen(first.context.copy)).toBe(true);
    expect(transition(def, first, 'again').snapshot.context.frozen).toBe(false); // another event, another value
  });
});

describe('_ioprocessors (SCXML 5.10, C.1)', () => {
  it('maps the SCXML processor, by type URI and by its short name, to this session location', () => {
    const def = fromSCXML(
      doc(`  <datamodel>
    <data id="byUri" expr="_ioprocessors['${SCXML_TYPE}'].location"/>
    <data id="byName" expr="_ioprocessors.scxml.location"/>
  </datamodel>
  <state id="s0"/>`),
    );
    expect(initialTransition(def).snapshot.context).toEqual({ byUri: '#_scxml_rxslice', byName: '#_scxml_rxslice' });
  });

  it('is read-only: an <assign> to it raises error.execution and leaves it unchanged', () => {
    const def = fromSCXML(
      doc(`  <datamodel><data id="before" expr="_ioprocessors"/><data id="same"/></datamodel>
  <state id="s0">
    <onentry><assign location="_ioprocessors" expr="'other'"/></onentry>
    <transition event="error.execution" target="s1"/>
  </state>
  <state id="s1">
    <onentry><assign location="same" expr="before == _ioprocessors"/></onentry>
  </state>`),
    );
    const result = initialTransition(def);
    expect(result.snapshot.configuration).toEqual(['s1']);
    expect(result.snapshot.context.same).toBe(true);
    expect(String(result.errors[0])).toMatch(/"_ioprocessors": system variables are read-only/);
  });
});

describe('_name (SCXML 5.10)', () => {
  const named = (body: string) => fromSCXML(doc(body, ' name="machineName"'));

  it('is the name attribute of <scxml>, bound at load time (W3C IRP test 323)', () => {
    const def = named(`  <datamodel><data id="atLoad" expr="_name"/><data id="later"/></datamodel>
  <state id="s0"><onentry><assign location="later" expr="_name + '!'"/></onentry></state>`);
    expect(initialTransition(def).snapshot.context).toEqual({ atLoad: 'machineName', later: 'machineName!' });
  });

  it('is undefined when the document has no name, and is not the name given in the options', () => {
    const xml = doc(`  <datamodel><data id="n" expr="_name"/><data id="t" expr="typeof _name"/></datamodel><state id="s0"/>`);
    expect(initialTransition(fromSCXML(xml)).snapshot.context).toEqual({ n: undefined, t: 'undefined' });
    expect(initialTransition(fromSCXML(xml, { name: 'other' })).snapshot.context.n).toBeUndefined();
    expect(initialTransition(fromSCXML(doc(`  <datamodel><data id="n" expr="_name"/></datamodel><state id="s0"/>`, ' name="doc"'), { name: 'other' })).snapshot.context.n).toBe('doc');
  });

  it('is read-only: an <assign> to it, or to a member of it, raises error.execution and leaves it unchanged (W3C IRP tests 324, 329)', () => {
    const def = named(`  <datamodel><data id="errors" expr="0"/></datamodel>
  <state id="s0">
    <onentry><assign location="_name" expr="'otherName'"/></onentry>
    <onentry><assign location="_name.x" expr="1"/></onentry>
    <transition event="error.execution" cond="errors == 0"><assign location="errors" expr="errors + 1"/></transition>
    <transition event="error.execution" cond="errors == 1 &amp;&amp; _name === 'machineName'" target="pass"/>
    <transition event="*" target="fail"/>
  </state>
  <final id="pass"/><final id="fail"/>`);
    const result = initialTransition(def);
    expect(result.snapshot.configuration).toEqual(['pass']);
    expect(String(result.errors[0])).toMatch(/"_name": system variables are read-only/);
  });

  it('is the scope given to compileExpression, undefined without one', () => {
    const args = { context: {}, event: { type: 'e' }, eventKind: 'external' as const, sendId: undefined, inState: () => false, slices: { get: () => { throw new Error('no slices here'); } } };
    expect(compileExpression('_name', { name: 'm' })(args)).toBe('m');
    expect(compileExpression('_name')(args)).toBeUndefined();
  });
});

describe('names beginning with "_" that rxslice does not bind are rejected at import (SCXML 5.10)', () => {
  it('in an expression, naming the element and line', () => {
    const xml = doc(`  <state id="s0">
    <transition cond="_x3c == 1" target="s1"/>
  </state>
  <state id="s1"/>`);
    expect(() => fromSCXML(xml)).toThrow(ScxmlUnsupportedError);
    expect(() => fromSCXML(xml)).toThrow(/<transition> at line 4, column \d+: cond="_x3c == 1" is not supported: .*"_x3c"/);
    expect(() => fromSCXML(doc(`  <datamodel><data id="n" expr="_data"/></datamodel><state id="s0"/>`))).toThrow(/<data> at line 3.*"_data"/);
  });

  it('as an assignment location, unless it is a system variable (then error.execution at run time, as W3C test 346 expects)', () => {
    expect(() => fromSCXML(doc(`  <state id="s0"><onentry><assign location="_mine" expr="1"/></onentry></state>`))).toThrow(
      /<assign> at line 3, column \d+: location="_mine" is not a supported location: .*reserved/,
    );
    const def = fromSCXML(doc(`  <state id="s0"><onentry><assign location="_name" expr="'x'"/></onentry></state>`));
    expect(String(initialTransition(def).errors[0])).toMatch(/"_name": system variables are read-only/);
  });

  it('as a <data> id', () => {
    expect(() => fromSCXML(doc(`  <datamodel><data id="_private" expr="1"/></datamodel><state id="s0"/>`))).toThrow(ScxmlInvalidError);
    expect(() => fromSCXML(doc(`  <datamodel><data id="_private" expr="1"/></datamodel><state id="s0"/>`))).toThrow(/<data> at line 3.*reserved/);
  });
});

describe('<donedata> (SCXML 5.7)', () => {
  const compound = (donedata: string) =>
    fromSCXML(
      doc(`  <datamodel><data id="n" expr="41"/><data id="got"/></datamodel>
  <state id="s0" initial="work">
    <state id="work"><transition event="finish" target="end"/></state>
    <final id="end"><donedata>${donedata}</donedata></final>
    <transition event="done.state.s0" target="after"><assign location="got" expr="_event.data"/></transition>
  </state>
  <state id="after"/>`),
    );
  const dataOf = (donedata: string) => {
    const def = compound(donedata);
    const next = transition(def, initialTransition(def).snapshot, 'finish').snapshot;
    expect(next.configuration).toEqual(['after']);
    return next.context.got;
  };

  it('<param> values become an object', () => {
    expect(dataOf(`<param name="answer" expr="n + 1"/><param name="copy" location="n"/>`)).toEqual({ answer: 42, copy: 41 });
  });
  it('<content> text that is not JSON becomes a space-normalized string, never an expression', () => {
    expect(dataOf(`<content>  n  plus
      one </content>`)).toBe('n plus one');
    expect(dataOf(`<content>n</content>`)).toBe('n');
  });
  it('<content> JSON text becomes the value; <content expr> is evaluated', () => {
    expect(dataOf(`<content>{"a": [1, 2]}</content>`)).toEqual({ a: [1, 2] });
    expect(dataOf(`<content expr="n * 2"/>`)).toBe(82);
  });
  it('<content> together with <param> is invalid', () => {
    expect(() => compound(`<content>1</content><param name="a" expr="1"/>`)).toThrow(ScxmlInvalidError);
  });
});
