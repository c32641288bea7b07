import { describe, expect, it } from 'vitest';
import { createMachineActor, toMermaid } from '../../src/machines/index.js';
import { compileExpression, fromSCXML, InvalidExpressionError, ScxmlInvalidError, ScxmlUnsupportedError } from '../../src/scxml/index.js';

const doc = (body: string, attrs = '') => `<?xml version="1.0"?>
<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript"${attrs}>
${body}
</scxml>`;

describe('fromSCXML', () => {
  it('imports states, datamodel, guards, assign, if/else, raise and donedata', () => {
    const def = fromSCXML(
      doc(`  <datamodel><data id="n" expr="1"/><data id="cfg">{"limit": 3}</data></datamodel>
  <state id="run">
    <transition event="tick" cond="n &lt; cfg.limit" target="run">
      <assign location="n" expr="n + 1"/>
    </transition>
    <transition event="tick" target="end">
      <if cond="n === 3"><raise event="exact"/><else/><raise event="other"/></if>
    </transition>
  </state>
  <final id="end"><donedata><param name="count" expr="n"/></donedata></final>`),
    );
    const actor = createMachineActor(def).start();
    actor.send('tick');
    actor.send('tick');
    expect(actor.snapshot().context).toEqual({ n: 3, cfg: { limit: 3 } });
    actor.send('tick');
    expect(actor.snapshot()).toMatchObject({ configuration: ['end'], done: true, output: { count: 3 } });
  });

  it('rejects <script> naming the element and its line, importing nothing', () => {
    const xml = doc(`  <state id="a">
    <onentry>
      <script>doSomething()</script>
    </onentry>
  </state>`);
    expect(() => fromSCXML(xml)).toThrow(ScxmlUnsupportedError);
    try {
      fromSCXML(xml);
    } catch (e) {
      expect(e).toMatchObject({ code: 'SCXML_UNSUPPORTED', element: 'script', line: 5 });
    }
  });

  it('rejects a send to another session (#_scxml_<id>) instead of delivering it to itself', () => {
    expect(() => fromSCXML(doc(`<state id="a"><onentry>\n<send event="e" target="#_scxml_other"/></onentry></state>`))).toThrow(
      /<send> at line 4, column 1: target="#_scxml_other" is not supported/,
    );
  });

  it('rejects <invoke>, foreign send targets and expressions outside the subset', () => {
    expect(() => fromSCXML(doc(`<state id="a"><invoke src="x.scxml"/></state>`))).toThrow(/<invoke> at line 3/);
    expect(() => fromSCXML(doc(`<state id="a"><onentry>\n<send event="e" target="http://example.com"/></onentry></state>`))).toThrow(
      /<send> at line 4, column 1: target="http:\/\/example.com" is not supported/,
    );
    expect(() => fromSCXML(doc(`<state id="a"><transition cond="x = 1" target="a"/></state>`))).toThrow(ScxmlUnsupportedError);
    expect(() => fromSCXML(doc(`<state id="a"><transition cond="alert('x')" target="a"/></state>`))).toThrow(/function call/);
  });

  it('reports invalid documents: unknown targets, malformed XML', () => {
    expect(() => fromSCXML(doc(`<state id="a"><transition event="e" target="zz"/></state>`))).toThrow(ScxmlInvalidError);
    expect(() => fromSCXML(doc(`<state id="a"><transition event="e" target="zz"/></state>`))).toThrow(/target "zz" names no state/);
    expect(() => fromSCXML('<scxml><state id="a"></scxml>')).toThrow(/not well-formed/);
  });

  it('imports history, parallel and initial elements; Mermaid shows them', () => {
    const def = fromSCXML(
      doc(`  <state id="s"><initial><transition target="p"/></initial>
    <history id="h" type="deep"><transition target="p"/></history>
    <parallel id="p"><state id="r1"/><state id="r2"/></parallel>
  </state>`),
    );
    const mermaid = toMermaid(def);
    expect(mermaid).toContain('state "H*" as h');
    expect(mermaid).toContain('--');
  });
});

describe('compileExpression (no eval)', () => {
  const args = (context: Record<string, unknown>) => ({
    context,
    event: { type: 'e', payload: { v: 2 } },
    eventKind: 'external' as const,
    sendId: undefined,
    inState: (id: string) => id === 's1',
    slices: { get: () => { throw new Error('no slices here'); } },
  });
  it('evaluates the safe subset', () => {
    expect(compileExpression("x + 1 > 2 && In('s1')")(args({ x: 2 }))).toBe(true);
    expect(compileExpression('_event.data.v * 10')(args({}))).toBe(20);
    expect(compileExpression("a.b[0] === 'q' ? 'yes' : 'no'")(args({ a: { b: ['q'] } }))).toBe('yes');
    expect(compileExpression('Math.max(1, x)')(args({ x: 5 }))).toBe(5);
  });
  it('refuses prototype access and unknown names', () => {
    expect(() => compileExpression('x.constructor')).toThrow(InvalidExpressionError);
    expect(() => compileExpression('x["__proto__"]')(args({ x: {} }))).toThrow(/not allowed/);
    expect(() => compileExpression('y')(args({}))).toThrow(/not declared/);
    expect(() => compileExpression('process.exit()')).toThrow(InvalidExpressionError);
    // names inherited by the table of globals are not globals: never Object, Object.prototype.toString, ...
    expect(() => compileExpression('constructor')).toThrow(InvalidExpressionError);
    expect(() => compileExpression('toString')(args({}))).toThrow(/not declared/);
    expect(() => compileExpression('hasOwnProperty')(args({}))).toThrow(/not declared/);
    expect(compileExpression('toString')(args({ toString: 'data' }))).toBe('data');
  });
  it('rejects ++ and -- (which jsep would read as +(+x)) and an unbound _x, instead of evaluating them wrongly', () => {
    expect(() => compileExpression('++x == 2')).toThrow(/update operators/);
    expect(() => compileExpression('--x')).toThrow(/update operators/);
    expect(() => compileExpression('_x')).toThrow(/"_x"/);
    expect(compileExpression("x - -1 + '++'")(args({ x: 1 }))).toBe('2++');
    expect(() => fromSCXML(doc(`  <datamodel><data id="v" expr="1"/></datamodel>\n  <state id="a"><transition cond="++v == 2" target="b"/></state>\n  <state id="b"/>`))).toThrow(
      /<transition> at line 4, column \d+: cond="\+\+v == 2" is not supported/,
    );
  });
});
