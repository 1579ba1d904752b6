/**
 * The engine interface is the System One shape the decision-model ecosystem speaks:
 * one state, several named typed questions, one probability distribution per
 * question. Engines know nothing of keys, credits or the HTTP API.
 *
 * Presentation order matters (a stress check asks with options reversed), so it is
 * carried by the order of `criteria`: array order for `choice` and `score` (an
 * array, because objects put integer-like keys such as "2025" first whatever the
 * insertion order), object key order for `noul` (`{ false, true }` presents No
 * before Yes).
 */

export type NoulQuestion = {
  type: 'noul';
  instructions: string;
  criteria?: { true?: string | null; false?: string | null };
};
export type ChoiceQuestion = {
  type: 'choice';
  instructions: string;
  /** Options in presentation order; labels are distinct. */
  criteria: { label: string; description: string | null }[];
};
export type ScoreQuestion = {
  type: 'score';
  instructions: string;
  /** Level descriptions in presentation order; at least two. */
  criteria: string[];
};
export type Question = NoulQuestion | ChoiceQuestion | ScoreQuestion;
export type Questions = Record<string, Question>;

/**
 * Distributions are normalised: they sum to 1. An engine that reads them off the
 * model's next-token probabilities also says what share of that probability fell on
 * the answers' labels before renormalising (`labelMass`, the smallest over the
 * readings it took; labels.ts); one whose model states its probabilities, or a
 * server that sends only the distribution, has none to say.
 */
type Read = { labelMass?: number };
export type NoulAnswer = Read & { type: 'noul'; yes: number };
/** Keyed by the question's criteria labels. */
export type ChoiceAnswer = Read & { type: 'choice'; probabilities: Record<string, number> };
/** Indexed like the question's criteria array. */
export type ScoreAnswer = Read & { type: 'score'; probabilities: number[] };
export type Answer = NoulAnswer | ChoiceAnswer | ScoreAnswer;

export type AnswerOf<Q extends Question> = Q extends NoulQuestion ? NoulAnswer : Q extends ChoiceQuestion ? ChoiceAnswer : ScoreAnswer;

export interface EngineReply<Q extends Questions = Questions> {
  answers: { [K in keyof Q]: AnswerOf<Q[K]> };
  /**
   * The prompt tokens of every provider call made for this reply, summed: each call's
   * count as its server reported it, or decide's own count of what the call sent when
   * the server reported none (token-count.ts). The local engine counts in its model's
   * own tokenizer.
   */
  inputTokens: number;
}

/**
 * What an engine may pass on about the request a call serves. The systemone engine
 * sends `requestId` as its server's `X-Request-Id`, so one id names the request in
 * both servers' logs; the others have no such header to send it in.
 */
export interface AskContext {
  requestId?: string;
}

export interface Engine {
  /** Provider kind, e.g. `openai`, `systemone`. */
  readonly name: string;
  /** The model name reported in decisions. */
  readonly model: string;
  /**
   * Decisions the engine works on at once, when it knows (the local engine: its
   * context's sequences). The service then queues decisions beyond it as long as
   * the deadline allows and refuses the rest with 429 (service/admission.ts);
   * without it, a provider queues on its own side.
   */
  readonly capacity?: number;
  /**
   * For an engine that works elsewhere (a provider over HTTP): the connections its
   * pool keeps to the provider. A call beyond them waits in the pool, so decisions
   * beyond them wait too; the service admits that many at once and queues or refuses
   * the rest by their measured times (service/admission.ts), rather than letting a
   * burst wait in the pool into its deadline.
   */
  readonly connections?: number;
  /**
   * Where the engine is, for the operator's start line: a provider's base URL (never
   * with a key), or the local engine's model file.
   */
  readonly endpoint?: string;
  /**
   * One cheap call that shows a provider answers, and takes the key (its models
   * list): `decide serve` makes it at start and `GET /readyz` now and then. Throws an
   * EngineError saying why not, naming the URL it called. The local engine has none:
   * loaded is ready.
   */
  probe?(signal: AbortSignal): Promise<void>;
  /**
   * Answers every question about one state. `signal` carries the decision's
   * deadline: when it aborts, the engine gives up and throws `EngineError('timeout')`.
   */
  ask<Q extends Questions>(state: string, questions: Q, signal: AbortSignal, call?: AskContext): Promise<EngineReply<Q>>;
  /**
   * Several states' questions as one job (a decision's base call and its
   * without-fact checks), replies in call order, for an engine that can share work
   * between them: the local engine evaluates what their prompts have in common once.
   * Without it, each call is an `ask` of its own.
   */
  askAll?(calls: ReadonlyArray<{ state: string; questions: Questions }>, signal: AbortSignal, call?: AskContext): Promise<EngineReply[]>;
  close?(): Promise<void>;
}

export type EngineFailure = 'busy' | 'bad_response' | 'unavailable' | 'timeout';

/** Every provider failure maps onto one of four kinds; the service maps those to 429/502/503/504. */
export class EngineError extends Error {
  constructor(
    readonly kind: EngineFailure,
    message: string,
    /** Seconds, for `busy` and `unavailable` when the provider said. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}
