import jsep from 'jsep';
import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from '../../src/machines/index.js';
import { compileExpression, fromSCXML, InvalidExpressionError } from '../../src/scxml/index.js';

/** Operators of the expression subset beyond arithmetic and comparison: `typeof` (ECMAScript 13.5.3), `in` (13.10.1), `& ^ |` (13.12). */
const doc = (body: string, attrs = '') => `<?xml version="1.0"?>
<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript" initial="s0"${attrs}>
${body}
</scxml>`;
const args = (context: Record<string, unknown>) => ({
  context,
  event: { type: 'e', payload: { v: 2 } },
  eventKind: 'external' as const,
  sendId: undefined,
  inState: () => false,
  slices: { get: () => { throw new Error('no slices here'); } },
});
const run = (source: string, context: Record<string, unknown> = {}) => compileExpression(source)(args(context));

describe('typeof (ECMAScript 13.5.3)', () => {
  it('returns the type string of each kind of value the subset can hold', () => {
    const context = { n: 1, s: 'a', b: true, o: { k: 1 }, a: [1], z: null, u: undefined };
    expect(['n', 's', 'b', 'o', 'a', 'z', 'u'].map((k) => run(`typeof ${k}`, context))).toEqual(['number', 'string', 'boolean', 'object', 'object', 'object', 'undefined']);
    expect(run('typeof o.k', context)).toBe('number');
    expect(run('typeof o.missing', context)).toBe('undefined');
    expect(run('typeof _event.data.v')).toBe('number');
  });

  it('binds tighter than binary operators, as in ECMAScript', () => {
    expect(run("typeof n === 'number' && typeof s !== 'number'", { n: 1, s: 'x' })).toBe(true);
    expect(run('typeof n + 1', { n: 1 })).toBe('number1');
    expect(run('typeof typeof n', { n: 1 })).toBe('string');
    expect(run('!typeof n', { n: 1 })).toBe(false);
  });

  it('is "undefined" for an undeclared name (no ReferenceError, step 2.a), but a member of undefined still throws', () => {
    expect(run('typeof nope')).toBe('undefined');
    expect(() => run('typeof nope.x')).toThrow(/not declared/);
    expect(() => run('typeof o.missing.x', { o: {} })).toThrow(TypeError);
  });

  it('never reaches prototypes: the forbidden names and members stay rejected', () => {
    expect(() => compileExpression('typeof constructor')).toThrow(InvalidExpressionError);
    expect(() => compileExpression('typeof x.constructor')).toThrow(InvalidExpressionError);
    expect(() => run('typeof x["__proto__"]', { x: {} })).toThrow(/not allowed/);
    expect(run('typeof toString')).toBe('undefined'); // a datamodel name, not Object.prototype.toString
    expect(() => compileExpression('typeof _unbound')).toThrow(/"_unbound"/);
  });

  it('never reads `typeof` without an operand, or another reserved word, as a name: evaluating it is an error (SCXML 5.9)', () => {
    expect(() => run('typeof', { typeof: 1 })).toThrow(SyntaxError);
    expect(() => run('x + typeof', { x: 1, typeof: 1 })).toThrow(/reserved word "typeof"/);
    expect(() => run('return', { return: 1 })).toThrow(/reserved word "return"/);
    expect(() => compileExpression('void 0')).toThrow(InvalidExpressionError);
    expect(() => compileExpression('delete x.y')).toThrow(InvalidExpressionError);
    expect(() => compileExpression('new Date()')).toThrow(InvalidExpressionError);
    expect(run('typeofx', { typeofx: 3 })).toBe(3); // a name that merely starts with the word
  });

  it('does not change jsep for other users: the operator is registered only while the subset parses', () => {
    compileExpression('typeof x');
    expect(Object.prototype.hasOwnProperty.call(jsep.unary_ops, 'typeof')).toBe(false);
    expect(jsep('typeof x').type).toBe('Compound');
    jsep.addUnaryOp('typeof');
    try {
      compileExpression('typeof x');
      expect(jsep('typeof x').type).toBe('UnaryExpression'); // someone else's registration is kept
    } finally {
      jsep.removeUnaryOp('typeof');
    }
  });

  it('in an SCXML cond: the blank _event fields of a raised event are undefined (W3C IRP tests 333-339)', () => {
    const def = fromSCXML(
      doc(`  <datamodel><data id="declared"/></datamodel>
  <state id="s0">
    <onentry><raise event="go"/></onentry>
    <transition event="go" cond="typeof _event.sendid === 'undefined' &amp;&amp; typeof _event.origin === 'undefined' &amp;&amp; typeof _event.name === 'string' &amp;&amp; typeof declared === 'undefined'" target="pass"/>
    <transition event="*" target="fail"/>
  </state>
  <final id="pass"/><final id="fail"/>`),
    );
    expect(initialTransition(def).snapshot.configuration).toEqual(['pass']);
  });

  it('typeof _event is "undefined" before the first event and "object" after it (SCXML 5.10)', () => {
    const def = fromSCXML(
      doc(`  <datamodel><data id="before" expr="typeof _event"/><data id="after"/></datamodel>
  <state id="s0"><transition event="go" target="s1"><assign location="after" expr="typeof _event"/></transition></state>
  <state id="s1"/>`),
    );
    const start = initialTransition(def).snapshot;
    expect(start.context.before).toBe('undefined');
    expect(transition(def, start, { type: 'go' }).snapshot.context.after).toBe('object');
  });

  it('an illegal expression such as `return` raises error.execution when evaluated (SCXML 5.9, as W3C IRP tests expect)', () => {
    const def = fromSCXML(
      doc(`  <datamodel><data id="x" expr="0"/></datamodel>
  <state id="s0">
    <onentry><assign location="x" expr="return"/></onentry>
    <transition event="error.execution" cond="x === 0" target="pass"/>
    <transition event="*" target="fail"/>
  </state>
  <final id="pass"/><final id="fail"/>`),
    );
    expect(initialTransition(def).snapshot.configuration).toEqual(['pass']);
  });
});

describe('in (ECMAScript 13.10.1), own properties only', () => {
  it("checks the fields of _event (SCXML 5.10.1: every field is present, blank or not) and of datamodel objects", () => {
    expect(run("'name' in _event && 'type' in _event && 'sendid' in _event && 'origin' in _event && 'origintype' in _event && 'invokeid' in _event && 'data' in _event")).toBe(true);
    expect(run("'other' in _event")).toBe(false);
    expect(run("'k' in o && !('j' in o)", { o: { k: undefined } })).toBe(true);
    expect(run("0 in a && !(1 in a) && 'length' in a", { a: ['x'] })).toBe(true);
    expect(run("'scxml' in _ioprocessors")).toBe(true);
  });

  it('has the precedence of the relational operators', () => {
    expect(run("'k' in o === true", { o: { k: 1 } })).toBe(true); // ('k' in o) === true
    expect(run("'k' + 'ey' in o", { o: { key: 1 } })).toBe(true); // ('k' + 'ey') in o
  });

  it('never reaches the prototype chain', () => {
    const context = { x: {}, a: [], parsed: JSON.parse('{"__proto__": 1, "constructor": 2}') as unknown };
    for (const key of ['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) expect(run(`'${key}' in x`, context)).toBe(false);
    expect(run("'map' in a || 'push' in a", context)).toBe(false);
    expect(run("'toString' in _event || 'constructor' in _ioprocessors")).toBe(false);
    // own keys named like the forbidden ones (JSON.parse creates them) are not present either
    expect(run("'__proto__' in parsed || 'constructor' in parsed", context)).toBe(false);
  });

  it('throws a TypeError (error.execution in a machine) when the right side is not an object, as ECMAScript does', () => {
    expect(() => run("'length' in s", { s: 'abc' })).toThrow(TypeError);
    expect(() => run("'x' in n", { n: null })).toThrow(TypeError);
    expect(() => run("'x' in u", { u: undefined })).toThrow(TypeError);
    expect(() => run("'x' in 1")).toThrow(TypeError);
    const def = fromSCXML(
      doc(`  <datamodel><data id="s" expr="'abc'"/></datamodel>
  <state id="s0"><transition cond="'length' in s" target="fail"/><transition event="error.execution" target="pass"/></state>
  <final id="pass"/><final id="fail"/>`),
    );
    expect(initialTransition(def).snapshot.configuration).toEqual(['pass']);
  });

  it('leaves jsep without the operator for other users, `in` alone is an error and instanceof stays rejected', () => {
    compileExpression("'a' in x");
    expect(Object.prototype.hasOwnProperty.call(jsep.binary_ops, 'in')).toBe(false);
    expect(() => run('in', { in: 1 })).toThrow(/reserved word "in"/);
    expect(() => compileExpression('x instanceof y')).toThrow(InvalidExpressionError);
    expect(run('index + inner', { index: 1, inner: 2 })).toBe(3); // names that start with the word
  });

  it("in an SCXML cond (the check of W3C IRP test 330)", () => {
    const def = fromSCXML(
      doc(`  <state id="s0">
    <onentry><send event="go"/></onentry>
    <transition event="go" cond="'name' in _event &amp;&amp; 'origin' in _event &amp;&amp; !('constructor' in _event)" target="pass"/>
    <transition event="*" target="fail"/>
  </state>
  <final id="pass"/><final id="fail"/>`),
    );
    expect(initialTransition(def).snapshot.configuration).toEqual(['pass']);
  });
});

describe('the binary bitwise operators & ^ | (ECMAScript 13.12)', () => {
  it('compute on the ToInt32 of both operands, below the equality operators in precedence', () => {
    expect(run('6 & 3')).toBe(2);
    expect(run('6 ^ 3')).toBe(5);
    expect(run('6 | 3')).toBe(7);
    expect(run('2.7 | 0')).toBe(2);
    expect(run('4294967297 | 0')).toBe(1);
    expect(run("'5' | 0")).toBe(5);
    expect(run('true | false')).toBe(1);
    expect(run('x == 0 | y != 2', { x: 1, y: 2 })).toBe(0); // (x == 0) | (y != 2)
    expect(run('1 | 2 & 3 ^ 1')).toBe(3); // 1 | ((2 & 3) ^ 1): & above ^ above |
  });

  it("W3C IRP test 459's check: `Var4==0 | Var3 != 2` is falsy when both comparisons are", () => {
    const def = fromSCXML(
      doc(`  <datamodel><data id="Var3"/><data id="Var4" expr="[1,2,3]"/></datamodel>
  <state id="s0">
    <onentry><foreach item="v" array="Var4" index="Var3"><assign location="v" expr="v"/></foreach></onentry>
    <transition cond="Var4==0 | Var3 != 2" target="fail"/>
    <transition target="pass"/>
  </state>
  <final id="pass"/><final id="fail"/>`),
    );
    expect(initialTransition(def).snapshot.configuration).toEqual(['pass']);
  });

  it('leaves ~, the shifts and ** outside the subset', () => {
    for (const source of ['~x', 'x << 1', 'x >> 1', 'x >>> 1', 'x ** 2']) expect(() => compileExpression(source)).toThrow(InvalidExpressionError);
  });
});
