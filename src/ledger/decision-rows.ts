import type { Door } from '../contract/decision-log.js';
import type { LoggedDecision } from './decisions.js';

/** A `decisions` row joined with its key's hint, as both stores read it. */
export interface DecisionRow {
  decided_at: string | Date;
  key_hint: string;
  door: Door;
  mode: LoggedDecision['mode'];
  depth: LoggedDecision['depth'];
  credits: number | string;
  signal: LoggedDecision['signal'];
  top: string;
  top_probability: number | null;
  confidence: number;
  question: string | null;
  context: string | null;
  choices: string | null;
  answer: string | null;
}

/** The row as the pass page reads it; the text only where the log kept it (level full). */
export function loggedDecision(row: DecisionRow): LoggedDecision {
  const decidedAt = row.decided_at instanceof Date ? row.decided_at.toISOString() : row.decided_at;
  const text =
    row.question === null || row.context === null || row.answer === null
      ? null
      : {
          question: row.question,
          context: row.context,
          choices: row.choices === null ? null : (JSON.parse(row.choices) as string[]),
          answer: row.answer,
        };
  return {
    decidedAt,
    keyHint: row.key_hint,
    door: row.door,
    mode: row.mode,
    depth: row.depth,
    credits: Number(row.credits),
    signal: row.signal,
    top: row.top,
    topProbability: row.top_probability,
    confidence: row.confidence,
    text,
  };
}
