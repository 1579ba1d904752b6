import type { LetteredQuestion } from './questions.js';
import type { LlamaModel, NodeLlamaCpp, Token } from './runtime.js';

/**
 * One reading as the model sees it, in the model's own chat template:
 *
 *     <template: user turn>Question: {instruction}
 *
 *     Text:
 *     {state}
 *
 *     Reply with the letter of the best answer to the question:
 *     A. {first answer}
 *     B. {second answer}<template: end of user turn, start of the answer>
 *
 * and the answer is read off the next token: the probabilities of the letters.
 * A question of more answers than MOST_LETTERS is read in groups (readings.ts): one
 * reading asks for the group, ending
 *
 *     The answers are shown in groups. Reply with the letter of the group that holds the best answer to the question:
 *     A.
 *     - {first answer}
 *     - {second answer}
 *     B.
 *     - …
 *
 * and each group is then a lettered reading of its answers alone, as above.
 *
 * Laid out so a decision's readings share the longest prefix, which the engine then
 * evaluates once (prefix-tree.ts): the question, then the state with its facts in
 * order, so a check that leaves out fact i shares the question and facts 1…i−1 with
 * the base reading; then the answers, so a reversed reading shares everything
 * before them. The question comes before the facts, not after: after them, it
 * would be evaluated again behind every fact left out, and the question (with its
 * grounding rule, about 80 tokens) outweighs the facts that follow the one left out
 * (measured: a 4-fact stress decision evaluated 3.2× the tokens of a standard one
 * that way). Each part is tokenised on its own, so a shared part is the same tokens
 * in every reading.
 */
export interface Reading {
  tokens: Token[];
  /**
   * The letters' tokens, in presentation order: each letter's spellings, the letter
   * alone and with a leading space where the vocabulary has that as one token
   * (`spellingsOf`). A letter's probability is the sum over its spellings.
   */
  letters: Token[][];
}

/** Texts already tokenised for a job, by text. */
export type TokenCache = Map<string, Token[]>;

/**
 * The letters one reading offers, A to T. Each must be one token (spellingsOf): it is
 * in the tiny test model, SmolLM2 and Gemma 3 alike (all 26 are, checked), as in
 * every common tokenizer. 20 as the remote engines read at most 20 labels at once
 * (labels.ts), and since the group question offers a letter per group too, 20 × 20
 * reach the format's 255 answers (grouped.ts `groupsOf`).
 */
const LETTERS = 'ABCDEFGHIJKLMNOPQRST';
/** The most answers one reading letters; a question of more is read in groups (readings.ts). */
export const MOST_LETTERS = LETTERS.length;
/** Stand-ins for the user's text and the answer, found again in the rendered template. */
const USER_MARK = '\u0000decide-user\u0000';
const ANSWER_MARK = '\u0000decide-answer\u0000';

export class PromptLayout {
  private constructor(
    private readonly model: LlamaModel,
    /** The template up to the user's text, and from its end to where the answer goes. */
    private readonly head: Token[],
    private readonly tail: Token[],
    private readonly letterTokens: Token[][],
  ) {}

  static create(runtime: NodeLlamaCpp, model: LlamaModel): PromptLayout {
    const template = runtime.resolveChatWrapper(model).generateContextState({
      chatHistory: [
        { type: 'user', text: USER_MARK },
        { type: 'model', response: [ANSWER_MARK] },
      ],
    }).contextText;
    const [head, rest] = split(runtime, template.values, USER_MARK);
    const [tail] = split(runtime, rest.values, ANSWER_MARK);
    const tokenize = (text: { tokenize: (tokenizer: unknown, options: 'trimLeadingSpace') => Token[] }) =>
      text.tokenize(model.tokenizer, 'trimLeadingSpace');
    return new PromptLayout(
      model,
      tokenize(head),
      tokenize(tail),
      [...LETTERS].map((letter) => spellingsOf(model, letter)),
    );
  }

  /**
   * One reading of `question` about `state`; `tokens` caches what is tokenised, since
   * a state, a question and its answers recur across readings (a 4-fact stress
   * decision tokenised the same answers 36 times).
   */
  reading(state: string, question: LetteredQuestion, tokens: TokenCache = new Map()): Reading {
    const bodies = question.answers.map((text) => ` ${flat(text)}`);
    return this.lettered(state, question.instruction, '\n\nReply with the letter of the best answer to the question:\n', bodies, tokens);
  }

  /**
   * The reading that asks which of `groups` (the answers' indices, in presentation
   * order) holds the best answer: every answer shown once, under its group's letter.
   */
  groupReading(state: string, question: LetteredQuestion, groups: readonly (readonly number[])[], tokens: TokenCache = new Map()): Reading {
    const bodies = groups.map((members) => `\n${members.map((i) => `- ${flat(question.answers[i])}`).join('\n')}`);
    const reply = '\n\nThe answers are shown in groups. Reply with the letter of the group that holds the best answer to the question:\n';
    return this.lettered(state, question.instruction, reply, bodies, tokens);
  }

  /**
   * The question, the state, `reply`, then `bodies` each after its letter and a full
   * stop. Every part tokenised on its own (and cached), so the question and the state
   * are the same tokens whichever reading follows them, and the prefix tree shares them.
   */
  private lettered(state: string, instruction: string, reply: string, bodies: readonly string[], tokens: TokenCache): Reading {
    if (bodies.length > LETTERS.length) throw new Error(`at most ${LETTERS.length} answers can be lettered; got ${bodies.length}`);
    const cached = (text: string) => tokens.get(text) ?? tokens.set(text, this.tokenize(text)).get(text)!;
    const prompt = [...this.head, ...cached(`Question: ${instruction}\n\nText:\n`), ...cached(state), ...cached(reply)];
    bodies.forEach((body, i) => prompt.push(this.letterTokens[i][0], ...cached(`.${body}${i === bodies.length - 1 ? '' : '\n'}`)));
    prompt.push(...this.tail);
    return { tokens: prompt, letters: this.letterTokens.slice(0, bodies.length) };
  }

  private tokenize(text: string): Token[] {
    return this.model.tokenize(text, false, 'trimLeadingSpace');
  }
}

/** One line: a line break inside an answer would read as the start of another. */
function flat(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

/** The rendered template before and after `mark`, special tokens kept. */
function split(runtime: NodeLlamaCpp, values: ReadonlyArray<string | object>, mark: string) {
  const at = values.findIndex((value) => typeof value === 'string' && value.includes(mark));
  if (at < 0) throw new Error('the chat template dropped the text it was given');
  const [before, after] = (values[at] as string).split(mark);
  return [runtime.LlamaText([...values.slice(0, at), before]), runtime.LlamaText([after, ...values.slice(at + 1)])] as const;
}

/**
 * The tokens a model may answer `letter` with: the one token that is the letter alone
 * (shown in the prompt, and required), then the letter after a space, when the
 * vocabulary has that as one token of its own. Both are the same answer: a reading
 * that counted only the first would take a model answering " B" for one that said
 * nothing. Lower case is not counted: "a" and "I" are words as well as letters.
 */
export function spellingsOf(model: LlamaModel, letter: string): Token[] {
  const alone = model.tokenize(letter, false, 'trimLeadingSpace').find((t) => model.detokenize([t]).trim() === letter);
  if (alone === undefined) throw new Error(`the model has no single token for "${letter}"`);
  // A byte-pair vocabulary spells the spaced letter " A"; a SentencePiece one "▁A",
  // which it gives the letter alone when no space is trimmed.
  const others = [model.tokenize(` ${letter}`, false), model.tokenize(letter, false)].flatMap((tokens) =>
    tokens.length === 1 && model.detokenize(tokens).trim() === letter ? tokens : [],
  );
  return [...new Set([alone, ...others])];
}
