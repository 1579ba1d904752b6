import type { Answer, ChoiceQuestion, NoulQuestion, Question } from './engine.js';
import { letterLabels, levelLabels } from './labels.js';

/**
 * One question as a chat prompt with short labels, for engines that read the answer
 * off the first token's logprobs (`renderQuestion`) or have the model state one
 * probability per label (`renderProbabilityQuestion`).
 *
 * Laid out for a server's prefix cache. A decision makes several calls (the main
 * question, the sufficiency probe, the other orders, one call per fact left out at
 * stress depth), and a server that caches prompts (vLLM, llama.cpp's server) reuses
 * only what a call shares with an earlier one from its first token on. So what every
 * call of a decision shares comes first and what tells them apart comes last: the
 * system message is one constant (`SYSTEM`); the user message opens with the facts,
 * in their order, then the question, its labelled answers in presentation order, and
 * last the reply instruction with the labels. A call without a fact shares everything
 * up to that fact; the probe and the other orders share the whole facts.
 *
 * The labelled section reads like
 *
 *     Options:
 *     - A: approve — the plan is funded
 *     - B: reject
 *
 * (`Levels:` for score, `Answers:` for noul), one `- <label>[: <text>]` line per label in
 * presentation order; a choice read in groups (`renderGroupQuestion`) has instead
 *
 *     Groups:
 *     - A:
 *       - approve — the plan is funded
 *       - reject
 *     - B:
 *       - …
 *
 * followed by a blank line and the reply instruction. test/fakes/openai-fake.ts parses
 * exactly this; keep them in step.
 */
export interface RenderedQuestion {
  /** `SYSTEM`, the same for every question. */
  system: string;
  user: string;
  /** Short labels in presentation order; slot i is criteria key / level i. */
  labels: string[];
}

/** The system message of every question: no label, no question, nothing that differs between calls. */
export const SYSTEM =
  'You answer one question about the facts the user gives, judging from those facts alone, and reply exactly as the message asks at its end.';

const YES = 'Yes';
const NO = 'No';

/** `{ false, true }` key order (or `false` alone) presents No first; the stress check relies on it. */
export function noulPresentsNoFirst(criteria: NoulQuestion['criteria']): boolean {
  const first = Object.keys(criteria ?? {}).find((k) => k === 'true' || k === 'false');
  return first === 'false';
}

export function renderQuestion(state: string, question: Question): RenderedQuestion {
  const { labels, header, lines } = optionLines(question);
  const user = [
    `Facts:\n${state}`,
    `Question:\n${question.instructions}`,
    `${header}:\n${lines.join('\n')}`,
    `Reply with exactly one label: ${orList(labels)}. Write nothing else.`,
  ].join('\n\n');
  return { system: SYSTEM, user, labels };
}

/**
 * The same question for engines that cannot read logprobs and have the model state a
 * probability per label instead (verbalized.ts). Only the reply instruction at the end
 * differs from `renderQuestion`, so the fakes parse both alike.
 */
export function renderProbabilityQuestion(state: string, question: Question): RenderedQuestion {
  const { labels, header, lines } = optionLines(question);
  const user = [
    `Facts:\n${state}`,
    `Question:\n${question.instructions}`,
    `${header}:\n${lines.join('\n')}`,
    `Give each label (${andList(labels)}) the probability, from 0 to 1, that it is the right answer; the probabilities sum to 1.`,
  ].join('\n\n');
  return { system: SYSTEM, user, labels };
}

/**
 * A choice whose options are too many for one logprob reading, asked which group of
 * them holds the best option: `groups` are the options' indices (in presentation
 * order), each group shown under its letter with its options, in order.
 */
export function renderGroupQuestion(state: string, question: ChoiceQuestion, groups: readonly (readonly number[])[]): RenderedQuestion {
  const labels = letterLabels(groups.length);
  const offer = orList(labels);
  const lines = groups.flatMap((members, g) => [
    `- ${labels[g]}:`,
    ...members.map((i) => `  - ${flat(withDescription(question.criteria[i].label, question.criteria[i].description))}`),
  ]);
  const user = [
    `Facts:\n${state}`,
    `Question:\n${question.instructions}`,
    `Groups:\n${lines.join('\n')}`,
    `The options are shown in groups. Reply with exactly one label, that of the group that holds the best option: ${offer}. Write nothing else.`,
  ].join('\n\n');
  return { system: SYSTEM, user, labels };
}

function optionLines(question: Question): { labels: string[]; header: string; lines: string[] } {
  switch (question.type) {
    case 'choice': {
      const labels = letterLabels(question.criteria.length);
      const lines = question.criteria.map((option, i) => line(labels[i], withDescription(option.label, option.description)));
      return { labels, header: 'Options', lines };
    }
    case 'score': {
      const labels = levelLabels(question.criteria.length);
      return { labels, header: 'Levels', lines: question.criteria.map((text, i) => line(labels[i], text)) };
    }
    case 'noul': {
      const sides = noulPresentsNoFirst(question.criteria) ? (['false', 'true'] as const) : (['true', 'false'] as const);
      const labels = sides.map((side) => (side === 'true' ? YES : NO));
      const lines = sides.map((side, i) => line(labels[i], question.criteria?.[side] ?? null));
      return { labels, header: 'Answers', lines };
    }
  }
}

/** Maps the label distribution back onto the question's own criteria. */
export function answerFromLabels(question: Question, labels: readonly string[], probabilities: readonly number[]): Answer {
  switch (question.type) {
    case 'choice':
      return {
        type: 'choice',
        probabilities: Object.fromEntries(question.criteria.map((option, i) => [option.label, probabilities[i]])),
      };
    case 'score':
      return { type: 'score', probabilities: question.criteria.map((_, i) => probabilities[i]) };
    case 'noul':
      return { type: 'noul', yes: probabilities[labels.indexOf(YES)] };
  }
}

function withDescription(key: string, description: string | null): string {
  return description ? `${key} — ${description}` : key;
}

/** One line of text: a line break would start what reads as another option. */
function flat(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

function line(label: string, text: string | null): string {
  const one = text === null ? '' : flat(text);
  return one ? `- ${label}: ${one}` : `- ${label}`;
}

function orList(labels: readonly string[]): string {
  return joinList(labels, 'or');
}

function andList(labels: readonly string[]): string {
  return joinList(labels, 'and');
}

function joinList(labels: readonly string[], conjunction: string): string {
  return labels.length < 2 ? labels.join('') : `${labels.slice(0, -1).join(', ')} ${conjunction} ${labels[labels.length - 1]}`;
}
