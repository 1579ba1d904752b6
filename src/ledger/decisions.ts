import type { Door } from '../contract/decision-log.js';
import type { Depth } from '../contract/decision.js';
import type { Signal } from '../contract/answer.js';
import type { MODES } from '../contract/modes.js';

/** What a log at `full` keeps besides the metadata: the text asked, and the answer's body. */
export interface DecisionText {
  question: string;
  context: string;
  /** The options of a choice, or the levels of a score; null for a noul. */
  choices: string[] | null;
  /** The answer's JSON body, exactly as sent. */
  answer: string;
}

/**
 * One decision as the log keeps it, written by the commit that settles its charge
 * (charges.ts, `Settlement.logged`). The key by its id, never the key itself.
 */
export interface DecisionEntry {
  keyId: string;
  passId: string;
  door: Door;
  mode: (typeof MODES)[number];
  depth: Depth;
  /** Credits the decision took from its pass; 0 for a free one (or one served free). */
  credits: number;
  signal: Signal;
  /** The result's top answer: the option or level chosen, or yes/no. */
  top: string;
  /** The probability of that top answer, 0 to 1. */
  topProbability: number;
  /**
   * The result's confidence as the API defines it, in every mode: the margin
   * (k·p − 1)/(k − 1) of the top answer over an even split of the k answers (a noul
   * has k = 2), 0 = evenly split, 1 = certain. Not a probability.
   */
  confidence: number;
  /** Only at level `full`. */
  text: DecisionText | null;
}

/** A logged decision as the pass page reads it: its time and its key's hint instead of the ids. */
export type LoggedDecision = Omit<DecisionEntry, 'keyId' | 'passId' | 'topProbability'> & {
  decidedAt: string;
  keyHint: string;
  /** Null only for a choice logged before the log kept it, at level metadata (its options were not kept). */
  topProbability: number | null;
};

/**
 * The optional decision log (`DECIDE_DECISION_LOG`). Entries are written only with a
 * commit (charges.ts), so a decision is logged exactly when it was served: never for
 * one that failed, and never again for a replay. They are kept `retentionDays` (the
 * store's option), then swept.
 */
export interface DecisionLog {
  /** The pass's latest `limit` entries, newest first. */
  recent(passId: string, limit: number): Promise<LoggedDecision[]>;
  /** Deletes the entries decided more than the retention before `now`; returns how many. */
  sweep(now: Date): Promise<number>;
}

/** The retention as the cut-off instant: entries decided before it are swept. */
export function retentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * 86_400_000);
}
