import { describe, expect, it } from 'vitest';
import { contextWithout, MAX_FACTS, splitFacts } from '../../src/decision/facts.js';

const texts = (context: string) => splitFacts(context).map((fact) => fact.text);

describe('splitFacts', () => {
  it('splits prose into sentences', () => {
    expect(texts('The team has four engineers. Two of them know Rust! Is the deadline in March? It is.')).toEqual([
      'The team has four engineers.',
      'Two of them know Rust!',
      'Is the deadline in March?',
      'It is.',
    ]);
  });

  it('does not break at abbreviations, initialisms or decimals', () => {
    expect(
      texts(
        'Use a list price, e.g. the one from 2024. Dr. Smith approves. Vendors (e.g. Acme) quote 3.5 million. ' +
          'The U.S. office agrees, i.e. Boston.',
      ),
    ).toEqual([
      'Use a list price, e.g. the one from 2024.',
      'Dr. Smith approves.',
      'Vendors (e.g. Acme) quote 3.5 million.',
      'The U.S. office agrees, i.e. Boston.',
    ]);
  });

  it('splits bullets and numbered lists into items without their markers', () => {
    const context = [
      'Options considered:',
      '- Postgres: mature, the team knows it.',
      '* SQLite: one file, no server.',
      '  • Fits a single node.',
      '',
      '1. Latency must stay under 50 ms.',
      '2) Budget is 2000 EUR per month.',
      '-5 degrees in the server room is not a bullet.',
      '---',
    ].join('\n');
    expect(texts(context)).toEqual([
      'Options considered:',
      'Postgres: mature, the team knows it.',
      'SQLite: one file, no server.',
      'Fits a single node.',
      'Latency must stay under 50 ms.',
      'Budget is 2000 EUR per month.',
      '-5 degrees in the server room is not a bullet.',
    ]);
  });

  it('splits list items that hold several sentences, and lines without punctuation', () => {
    expect(texts('- Costs 10 EUR. Ships in 2 days.\n- Has no support\nWarranty of two years')).toEqual([
      'Costs 10 EUR.',
      'Ships in 2 days.',
      'Has no support',
      'Warranty of two years',
    ]);
  });

  it('keeps a context of one fact whole', () => {
    expect(texts('Only one fact here, and no full stop')).toEqual(['Only one fact here, and no full stop']);
    expect(texts('One sentence only.')).toEqual(['One sentence only.']);
  });

  it(`merges a 20-sentence context down to ${MAX_FACTS} facts, shortest neighbours first`, () => {
    const sentences = Array.from({ length: 20 }, (_, i) => `Fact ${i + 1} is ${i % 2 ? 'long '.repeat(6).trim() : 'short'}.`);
    const facts = texts(sentences.join(' '));
    expect(facts).toHaveLength(MAX_FACTS);
    // Nothing is lost or reordered: the facts read back as the sentences.
    expect(facts.join(' ')).toBe(sentences.join(' '));
    // Merging is by length: no merged fact holds more than two sentences here.
    expect(Math.max(...facts.map((fact) => fact.split('. ').length))).toBe(2);
  });

  it('joins merged list items with their line break', () => {
    const context = Array.from({ length: 13 }, (_, i) => `- Item ${i + 1}`).join('\n');
    const facts = texts(context);
    expect(facts).toHaveLength(12);
    expect(facts[0]).toBe('Item 1\nItem 2');
  });
});

describe('contextWithout', () => {
  const without = (context: string, index: number) => contextWithout(context, splitFacts(context)[index]);

  it('cuts one sentence out of prose', () => {
    const context = 'The team has four engineers. Two of them know Rust. The deadline is in March.';
    expect(without(context, 0)).toBe('Two of them know Rust. The deadline is in March.');
    expect(without(context, 1)).toBe('The team has four engineers. The deadline is in March.');
    expect(without(context, 2)).toBe('The team has four engineers. Two of them know Rust.');
  });

  it('cuts a list item with its bullet and keeps the layout of the rest', () => {
    const context = 'Options:\n- Postgres is mature.\n  - It needs a server.\n- SQLite is one file.\n\nBudget is small.';
    expect(without(context, 1)).toBe('Options:\n  - It needs a server.\n- SQLite is one file.\n\nBudget is small.');
    expect(without(context, 2)).toBe('Options:\n- Postgres is mature.\n- SQLite is one file.\n\nBudget is small.');
    expect(without(context, 3)).toBe('Options:\n- Postgres is mature.\n  - It needs a server.\n\nBudget is small.');
    expect(without(context, 4)).toBe('Options:\n- Postgres is mature.\n  - It needs a server.\n- SQLite is one file.');
  });

  it('cuts a sentence from the middle of a line', () => {
    const context = '1. Costs 10 EUR. Ships in 2 days.\n2. Has support.';
    expect(without(context, 0)).toBe('Ships in 2 days.\n2. Has support.');
    expect(without(context, 1)).toBe('1. Costs 10 EUR.\n2. Has support.');
  });

  it('cuts a merged fact as a whole', () => {
    const context = Array.from({ length: 13 }, (_, i) => `- Item ${i + 1}`).join('\n');
    expect(without(context, 0).split('\n')[0]).toBe('- Item 3');
  });

  it('leaves every other fact in place', () => {
    const context = Array.from({ length: 20 }, (_, i) => `Sentence ${i + 1} holds a fact.`).join(' ');
    const facts = splitFacts(context);
    facts.forEach((fact, i) => {
      const rest = contextWithout(context, fact);
      expect(rest).not.toContain(fact.text);
      facts.forEach((other, j) => j !== i && expect(rest).toContain(other.text));
    });
  });
});
