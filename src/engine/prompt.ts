import type { Answer, ChoiceQuestion, NoulQuestion, Question } from './engine.js';
import { letterLabels, levelLabels } from './labels.js';

/**
 * One question as a chat prompt with short labels, for engines that read the answer
 * off the first token's logprobs (`renderQuestion`) or have the model state one
 * probability per label (`renderProbabilityQuestion`).
 *
 * The user message ends with a section like
 *
 *     Options:
 *     - A: approve — the plan is funded
 *     - B: reject
 *
 * (`Levels:` for score, `Answers:` for noul), one `- <label>[: <text>]` line per label in
 * presentation order; a choice read in groups (`renderGroupQuestion`) ends with
 *
 *     Groups:
 *     - A:
 *       - approve — the plan is funded
 *       - reject
 *     - B:
 *       - …
 *
 * test/fakes/openai-fake.ts parses exactly this; keep them in step.
 */
export interface RenderedQuestion {
  system: string;
  user: string;
  /** Short labels in presentation order; slot i is criteria key / level i. */
  labels: string[];
}

const YES = 'Yes';
const NO = 'No';

/** `{ false, true }` key order (or `false` alone) presents No first; the stress check relies on it. */
export function noulPresentsNoFirst(criteria: NoulQuestion['criteria']): boolean {
  const first = Object.keys(criteria ?? {}).find((k) => k === 'true' || k === 'false');
  return first === 'false';
}

export function renderQuestion(state: string, question: Question): RenderedQuestion {
  const { labels, header, lines } = optionLines(question);
  const offer = orList(labels);
  const system = [
    'You answer one question about the facts the user gives, judging from those facts alone.',
    `Reply with exactly one label: ${offer}. Write nothing else.`,
  ].join(' ');
  const user = [
    `Facts:\n${state}`,
    `Question:\n${question.instructions}`,
    `${header}:\n${lines.join('\n')}`,
    `Reply with one label: ${offer}.`,
  ].join('\n\n');
  return { system, user, labels };
}

/**
 * The same question for engines that cannot read logprobs and have the model state a
 * probability per label instead (verbalized.ts). The user message keeps the labelled
 * section of `renderQuestion`, so the fakes parse both alike; only the instructions
 * around it change.
 */
export function renderProbabilityQuestion(state: string, question: Question): RenderedQuestion {
  const { labels, header, lines } = optionLines(question);
  const all = andList(labels);
  const system = [
    'You answer one question about the facts the user gives, judging from those facts alone.',
    `Give each label (${all}) the probability, from 0 to 1, that it is the right answer; the probabilities sum to 1.`,
  ].join(' ');
  const user = [
    `Facts:\n${state}`,
    `Question:\n${question.instructions}`,
    `${header}:\n${lines.join('\n')}`,
    `Give a probability for each label: ${all}.`,
  ].join('\n\n');
  return { system, user, labels };
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
  const system = [
    'You answer one question about the facts the user gives, judging from those facts alone.',
    `The options are shown in groups. Reply with exactly one group label: ${offer}. Write nothing else.`,
  ].join(' ');
  const user = [
    `Facts:\n${state}`,
    `Question:\n${question.instructions}`,
    `Groups:\n${lines.join('\n')}`,
    `Reply with the label of the group that holds the best option: ${offer}.`,
  ].join('\n\n');
  return { system, user, labels };
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
