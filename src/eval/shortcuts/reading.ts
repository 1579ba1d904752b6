import { splitFacts } from '../../decision/facts.js';
import type { EvalItem } from '../item.js';

/**
 * What a shortcut sees of an item: its classes, its sentences, and the surface
 * features the rules of docs/eval.md ("Shortcut baselines") read — numbers and
 * words — without understanding any of them.
 */

/** An item as the rules read it; `answer` indexes `classes`. */
export interface Case {
  item: EvalItem;
  /** Options (choice), levels (score), or ['yes', 'no'] (noul). */
  classes: string[];
  answer: number;
  /** The context's sentences, split exactly as the service splits facts. */
  sentences: string[];
  /** The context's numbers in reading order (numbersIn). */
  numbers: number[];
}

export function caseOf(item: EvalItem): Case {
  const classes = item.mode === 'choice' ? item.options : item.mode === 'score' ? item.levels : ['yes', 'no'];
  const answer = item.mode === 'noul' ? (item.answer ? 0 : 1) : classes.indexOf(item.answer);
  const sentences = splitFacts(item.context).map((fact) => fact.text);
  return { item, classes, answer, sentences, numbers: sentences.flatMap(numbersIn) };
}

/** What an item scores by luck alone: one class in k. */
export const chanceOf = (c: Case): number => 1 / c.classes.length;

/**
 * Digits with optional thousands separators and a decimal part: "$1,200" is 1200,
 * "15 %" is 15, "2.5" is 2.5, "09:00" is 9 (then 0). A separator must be followed by
 * exactly three digits, so "1, 2" and "1,20" are not thousands.
 */
const NUMBER = /\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?/g;

export function numbersIn(text: string): number[] {
  return [...text.matchAll(NUMBER)].map((m) => Number(m[0].replaceAll(',', '')));
}

/** Distinct lower-case words of four letters or more, in order of first appearance. */
export function wordsOf(text: string): string[] {
  return [...new Set([...text.toLowerCase().matchAll(/\p{L}+/gu)].map((m) => m[0]).filter((w) => [...w].length >= 4))];
}
