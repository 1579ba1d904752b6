import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DecisionRequest, describeIssues } from '../../src/contract/index.js';
import { boundedText, comparable } from '../../src/contract/text.js';
import { CHOICE, NOUL } from '../support/requests.js';

/** The contract's text rule: NFC, invisible characters left out of the value, its length and comparisons. */

const INVISIBLE = {
  'zero-width space': '\u200B',
  'zero-width non-joiner': '\u200C',
  'zero-width joiner': '\u200D',
  'word joiner': '\u2060',
  'byte order mark': '\uFEFF',
  'soft hyphen': '\u00AD',
  'right-to-left override': '\u202E',
  'first strong isolate': '\u2068',
  'variation selector 16': '\uFE0F',
  'Hangul filler': '\u3164',
  'a tag character': '\u{E0041}',
};

const problemOf = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  return parsed.success ? null : describeIssues(parsed.error);
};

describe('boundedText', () => {
  const question = z.strictObject({ question: boundedText(8, 300) });

  it.each(Object.entries(INVISIBLE))('eight of %s, white space around them or not, are "must not be empty"', (_, char) => {
    expect(problemOf(question, { question: char.repeat(8) })).toBe('question: must not be empty');
    expect(problemOf(question, { question: ` ${char.repeat(4)}  ${char.repeat(4)} ` })).toBe('question: must not be empty');
  });

  it('refuses a NUL anywhere, alone or among invisible characters, rather than dropping it: no ledger column holds one', () => {
    for (const value of ['Ship it\u0000 on Friday?', '\u0000', '\u200B\u0000\u200B', `${'q'.repeat(301)}\u0000`]) {
      expect(problemOf(question, { question: value })).toBe('question: must not contain the NUL character (U+0000)');
    }
    // Other control characters are text like any other.
    expect(problemOf(question, { question: 'Ship it\u0001 on Friday?' })).toBeNull();
  });

  it('does not count invisible characters toward the length, and drops them from the value', () => {
    const padded = 'Go now?'.split('').join('\u200B');
    expect(problemOf(question, { question: padded })).toBe('question: must be 8 to 300 characters long (got 7)');
    expect(problemOf(question, { question: `${'q'.repeat(300)}\u200D\uFEFF` })).toBeNull();
    expect(question.parse({ question: '\uFEFF Ship\u00AD it on Fri\u200Bday? \u2060' }).question).toBe('Ship it on Friday?');
  });

  it('normalises to NFC before counting: a combining accent is one character with its letter', () => {
    const decomposed = 'cafe\u0301 '.repeat(2).trim(); // 11 code points as sent, 9 in NFC
    expect(question.parse({ question: decomposed }).question).toBe('café café');
    expect(problemOf(z.strictObject({ option: boundedText(2, 4) }), { option: 'cafe\u0301' })).toBeNull();
  });

  it('keeps visible format characters (an Arabic number sign) and ordinary spaces inside', () => {
    expect(question.parse({ question: '\u0600123 and 456' }).question).toBe('\u0600123 and 456');
  });

  it('publishes the same bounds in JSON Schema', () => {
    expect(z.toJSONSchema(boundedText(8, 300))).toMatchObject({ type: 'string', minLength: 8, maxLength: 300 });
  });
});

describe('comparable: NFC, without invisible characters, case-folded', () => {
  it.each([
    ['PostgreSQL', 'postgresql'],
    ['café', 'CAFE\u0301'],
    ['Mongo\u200BDB', 'mongodb'],
    ['Straße', 'STRASSE'],
    ['ΟΔΟΣ', 'οδοσ'],
    ['\u01F0', 'J\u030C'],
  ])('%j and %j compare equal', (a, b) => {
    expect(comparable(a)).toBe(comparable(b));
  });

  it('tells apart what differs visibly', () => {
    expect(comparable('café')).not.toBe(comparable('cafe'));
    expect(comparable('MySQL')).not.toBe(comparable('My SQL'));
  });
});

describe('options of a DecisionRequest', () => {
  const choice = (options: string[]) => DecisionRequest.safeParse({ ...CHOICE, options });

  it.each([
    ['a zero-width space', ['MongoDB', 'Mongo\u200BDB']],
    ['Unicode normalisation', ['caf\u00E9', 'cafe\u0301']],
    ['normalisation and case', ['Café', 'CAFE\u0301']],
    ['a soft hyphen and a BOM', ['PostgreSQL', '\uFEFFPost\u00ADgreSQL']],
  ])('differing only by %s are duplicates', (_, options) => {
    const parsed = choice(options);
    expect(parsed.success).toBe(false);
    expect(describeIssues(parsed.error!)).toMatch(/^options\.1: must be distinct \(case-insensitively, ignoring invisible characters\); "/);
  });

  it('are passed on in NFC and without invisible characters', () => {
    const parsed = DecisionRequest.parse({ ...CHOICE, options: ['Post\u200BgreSQL', 'cafe\u0301'] });
    expect(parsed.mode === 'choice' && parsed.options).toEqual(['PostgreSQL', 'café']);
    expect(DecisionRequest.parse({ ...NOUL, question: `\u200B${NOUL.question}\u2060` }).question).toBe(NOUL.question);
  });
});
