import { describe, expect, it } from 'vitest';
import {
  hasOrder,
  inOrder,
  isIndexKey,
  keysInOrder,
  orderedObject,
  parseKeepingOrder,
  stringifyInOrder,
} from '../../src/json/key-order.js';

describe('JSON objects keeping the order their keys were written in', () => {
  it('parses as JSON.parse does, and keeps every object’s key order, integer-like keys too', () => {
    const text = '{"criteria": {"b": 1, "10": {"z": [1, {"9": null, "a": "x"}], "1": true}, "2": "two"}, "0": 0}';
    const parsed = parseKeepingOrder(text) as any;
    expect(parsed).toEqual(JSON.parse(text));
    expect(Object.keys(parsed.criteria)).toEqual(['2', '10', 'b']);
    expect(keysInOrder(parsed)).toEqual(['criteria', '0']);
    expect(keysInOrder(parsed.criteria)).toEqual(['b', '10', '2']);
    expect(keysInOrder(parsed.criteria['10'])).toEqual(['z', '1']);
    expect(keysInOrder(parsed.criteria['10'].z[1])).toEqual(['9', 'a']);
    expect(stringifyInOrder(parsed)).toBe(text.replace(/: /g, ':').replace(/, /g, ','));
  });

  it('reads keys with escapes, strings that look like keys, and a key written twice (its first place, its last value)', () => {
    const text = '{"q\\"1": "x\\":{", "\\u0032": 1, "a": [":", "}"], "q\\"1": "last"}';
    const parsed = parseKeepingOrder(text) as any;
    expect(parsed).toEqual(JSON.parse(text));
    expect(keysInOrder(parsed)).toEqual(['q"1', '2', 'a']);
    expect(stringifyInOrder(parsed)).toBe('{"q\\"1":"last","2":1,"a":[":","}"]}');
  });

  it('refuses what JSON.parse refuses, with its message', () => {
    expect(() => parseKeepingOrder('{"a": 1,}')).toThrow(SyntaxError);
    expect(() => parseKeepingOrder('')).toThrow(SyntaxError);
  });

  it('walks deep nesting without recursion', () => {
    const depth = 100_000;
    const text = `${'['.repeat(depth)}{"2":1,"1":2}${']'.repeat(depth)}`;
    let value = parseKeepingOrder(text) as any;
    for (let i = 0; i < depth; i++) value = value[0];
    expect(keysInOrder(value)).toEqual(['2', '1']);
  });

  it('writes objects made here in the order recorded for them, and anything else as JSON.stringify does', () => {
    const made = orderedObject([
      ['b', 1],
      ['10', 2],
      ['2', undefined],
    ]);
    expect(stringifyInOrder(made)).toBe('{"b":1,"10":2}');
    expect(stringifyInOrder(inOrder({ x: 1, 3: 2 }, ['x', '3']))).toBe('{"x":1,"3":2}');
    for (const value of [null, 1.5, 'é"', [1, undefined, { a: new Date(0) }], { 2: 'b', 1: 'a' }]) {
      expect(stringifyInOrder(value)).toBe(JSON.stringify(value));
    }
    // A copy is a new object: its order is its own again.
    expect(keysInOrder({ ...made })).toEqual(['2', '10', 'b']);
  });

  it('records an order only where an object would not keep it: index-like keys', () => {
    expect(['0', '2', '10', '4294967294'].every(isIndexKey)).toBe(true);
    expect(['01', '-1', '1.5', '4294967295', ' 2', 'b'].some(isIndexKey)).toBe(false);
    expect(
      hasOrder(
        orderedObject([
          ['b', 1],
          ['a', 2],
        ]),
      ),
    ).toBe(false);
    expect(
      hasOrder(
        orderedObject([
          ['b', 1],
          ['10', 2],
        ]),
      ),
    ).toBe(true);
    const proto = orderedObject([
      ['__proto__', 1],
      ['x', 2],
    ]);
    expect(Object.keys(proto)).toEqual(['__proto__', 'x']);
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
  });
});
