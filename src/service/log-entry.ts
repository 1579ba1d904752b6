import type { DecisionRequest, DecisionResponse } from '../contract/index.js';
import type { DecisionLogLevel } from '../contract/decision-log.js';
import type { DecisionEntry, Reservation } from '../ledger/store.js';
import type { CommitOutcome } from '../ledger/charges.js';
import type { DecideContext } from './paid.js';
import { peakConfidence, round4 } from '../decision/outcome.js';

/** What a decision's own answer tells its log entry; the paid path adds who, through which door, and at what cost. */
export type LogFacts = Pick<DecisionEntry, 'mode' | 'depth' | 'signal' | 'top' | 'topProbability' | 'confidence' | 'text'>;

/**
 * The top answer of a result, its probability, and the result's confidence, alike in
 * every mode: the option chosen, the likeliest level of a score, or yes/no by the
 * likelier side (yes at exactly 0.5). `confidence` is the API's margin (k·p − 1)/(k − 1)
 * (decision/outcome.ts `peakConfidence`), which a noul's result does not carry: with
 * k = 2 it is |2·yes − 1|.
 */
export function topAnswer(response: DecisionResponse): { top: string; topProbability: number; confidence: number } {
  const { result } = response;
  if ('yesProbability' in result) {
    const yes = result.yesProbability >= 0.5;
    const topProbability = yes ? result.yesProbability : round4(1 - result.yesProbability);
    return { top: yes ? 'yes' : 'no', topProbability, confidence: peakConfidence(topProbability, 2) };
  }
  const top = 'selected' in result ? result.selected : result.likeliest;
  return { top, topProbability: result.probabilities[top], confidence: result.confidence };
}

/** A decision's facts for the log: its text kept as well (level `full` keeps it; `metadata` drops it). */
export function decisionFacts(request: DecisionRequest, response: DecisionResponse, json: string): LogFacts {
  const choices = request.mode === 'choice' ? request.options : request.mode === 'score' ? request.levels : null;
  return {
    mode: request.mode,
    depth: request.depth,
    signal: response.signal,
    ...topAnswer(response),
    text: { question: request.question, context: request.context, choices, answer: json },
  };
}

/**
 * The entry the commit writes (ledger/charges.ts `Settlement.logged`): the key by its
 * id, the door (MCP told apart from the API), the credits the commit took (none for a
 * free unit, or a decision served free after all), and the text only at `full`.
 */
export function logEntry(
  level: Exclude<DecisionLogLevel, 'off'>,
  facts: LogFacts,
  context: DecideContext,
  reservation: Reservation,
  outcome: CommitOutcome,
): DecisionEntry {
  const credits = outcome.charged && reservation.kind === 'credits' ? reservation.cost : 0;
  return {
    ...facts,
    keyId: context.caller.keyId,
    passId: context.caller.passId,
    door: context.door ?? context.channel,
    credits,
    text: level === 'full' ? facts.text : null,
  };
}
