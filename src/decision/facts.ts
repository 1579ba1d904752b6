import { codePoints } from '../contract/text.js';

/**
 * Facts of a context, for the leave-one-fact-out checks of a stress decision.
 *
 * A fact keeps the span of the context it came from, so the context without it is
 * the original text with that span cut out: a check's state differs from the base
 * state by the fact alone, not by reformatting, and the shift measures the fact.
 */

export const MAX_FACTS = 12;

export interface Fact {
  /** The fact as reported: trimmed, without its bullet marker. */
  text: string;
  /** [start, end) in the context: what removing the fact cuts, bullet marker included. */
  start: number;
  end: number;
}

interface Piece extends Fact {
  /** Whether the piece begins a line; merged text keeps that line break. */
  lineStart: boolean;
}

/** `-`, `*`, `•`, `+`, `1.`, `1)` followed by white space, at the start of a line. */
const BULLET = /^[ \t]*(?:[-*•+]|\d{1,3}[.)])[ \t]+/;

/**
 * Abbreviations after which the sentence segmenter breaks although the sentence goes
 * on ("Dr. Smith", "(e.g. Acme)"); a segment ending in one is joined to the next.
 */
const ABBREVIATION = /(?:(?:^|[\s(])(?:[A-Za-z]\.){2,}|\b(?:Dr|Mr|Mrs|Ms|Prof|St|Jr|Sr|vs|cf|approx|ca)\.)$/;

/** A piece with no letter or digit ("---", "…") is layout, not a fact. */
const CONTENT = /[\p{L}\p{N}]/u;

const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });

/**
 * Splits a context into sentences and list items, at most MAX_FACTS of them. Beyond
 * that, the adjacent pair with the fewest characters together is merged, repeatedly
 * (ties: the earliest pair): short neighbours go together first, so merged facts
 * stay of similar size and no single long fact swallows its neighbours.
 */
export function splitFacts(context: string): Fact[] {
  const pieces = linePieces(context).filter((piece) => CONTENT.test(piece.text));
  while (pieces.length > MAX_FACTS) {
    let best = 0;
    for (let i = 1; i < pieces.length - 1; i++) {
      if (pairLength(pieces, i) < pairLength(pieces, best)) best = i;
    }
    pieces.splice(best, 2, merge(pieces[best], pieces[best + 1]));
  }
  return pieces.map(({ text, start, end }) => ({ text, start, end }));
}

/**
 * The context with one fact cut out. The white space around the cut collapses to
 * the wider of its two sides (a line break over a space, keeping the next line's
 * indentation), so list items and paragraphs keep their layout.
 */
export function contextWithout(context: string, fact: Fact): string {
  const before = context.slice(0, fact.start);
  const after = context.slice(fact.end);
  const head = before.trimEnd();
  const tail = after.trimStart();
  if (!head) return tail;
  if (!tail) return head;
  const gapBefore = before.slice(head.length);
  const gapAfter = after.slice(0, after.length - tail.length);
  const gap = lineBreaks(gapAfter) >= lineBreaks(gapBefore) ? gapAfter : gapBefore;
  return head + (gap || ' ') + tail;
}

function linePieces(context: string): Piece[] {
  const pieces: Piece[] = [];
  for (const line of context.matchAll(/[^\r\n]+/g)) {
    const offset = line.index;
    const marker = BULLET.exec(line[0])?.[0] ?? '';
    const body = line[0].slice(marker.length);
    let lineStart = true;
    for (const sentence of sentences.segment(body)) {
      const text = sentence.segment.trim();
      if (!text) continue;
      const start = offset + marker.length + sentence.index + sentence.segment.indexOf(text);
      const previous = pieces.at(-1);
      if (!lineStart && previous && ABBREVIATION.test(previous.text)) {
        pieces[pieces.length - 1] = merge(previous, { text, start, end: start + text.length, lineStart });
      } else {
        // The first piece of a bulleted line carries the marker, so cutting it cuts the bullet.
        pieces.push({ text, start: lineStart ? offset : start, end: start + text.length, lineStart });
      }
      lineStart = false;
    }
  }
  return pieces;
}

function merge(a: Piece, b: Piece): Piece {
  return { text: a.text + (b.lineStart ? '\n' : ' ') + b.text, start: a.start, end: b.end, lineStart: a.lineStart };
}

function pairLength(pieces: Piece[], i: number): number {
  return codePoints(pieces[i].text) + codePoints(pieces[i + 1].text);
}

function lineBreaks(text: string): number {
  return text.split('\n').length - 1;
}
