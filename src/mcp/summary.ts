import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ServiceError, DecisionResponse, Usage } from '../contract/index.js';
import { counted } from '../contract/words.js';
import { confidenceWords, leadingAnswer, lowMassWords, noPivotWords, pivotWords, restsOnLittle, verdictOf } from '../contract/wording.js';

/**
 * The short human line each tool result carries next to `structuredContent`, e.g.
 * `PostgreSQL 71 % (directional) · confidence 0.42: 0 = evenly split, 1 = certain ·
 * context sufficiency 0.82 · 17 free left`.
 * Agents often show only the text, so it names the answer, how sure, whether the
 * facts sufficed and what the call left of the allowance.
 */

const percent = (p: number) => `${Math.round(p * 100)} %`;

/**
 * The leading label and its probability: the answer a reader looks for first, then
 * its confidence in the contract's words (a margin, not a probability; never a
 * percentage) and, for a score, the mean level.
 */
function headline(response: DecisionResponse): string {
  const { result, signal } = response;
  if ('yesProbability' in result) return `yes ${percent(result.yesProbability)} (${signal})`;
  const label = leadingAnswer(result);
  const score = 'score' in result ? ` · score ${result.score} of 0–2` : '';
  return `${label} ${percent(result.probabilities[label])} (${signal}) · ${confidenceWords(result.confidence)}${score}`;
}

/** A sentence of the shared wording as a part of the one line: lower-case first, no full stop. */
const clause = (sentence: string) => sentence[0].toLowerCase() + sentence.slice(1).replace(/\.$/, '');

function quoted(text: string, max = 60): string {
  return `“${text.length > max ? `${text.slice(0, max - 1)}…` : text}”`;
}

export function decisionText(response: DecisionResponse): string {
  const parts = [headline(response), `context sufficiency ${response.contextSufficiency}`];
  if (typeof response.labelMass === 'number') {
    parts.push(`label mass ${response.labelMass}${restsOnLittle(response.labelMass) ? `: ${lowMassWords(response.labelMass)}` : ''}`);
  }
  const { stress } = response;
  if (stress) {
    parts.push(`agreement ${percent(stress.agreement)}`, `verdict ${verdictOf(response)!.words}`);
    parts.push(
      stress.pivot
        ? `decisive fact ${quoted(stress.pivot.fact)}: ${clause(pivotWords(stress.pivot, percent(stress.pivot.shift)))}`
        : clause(noPivotWords(stress.checks)),
    );
  }
  const { access } = response;
  parts.push(access.type === 'free' ? `${access.freeRemaining} free left` : `${counted(access.passCredits, 'credit')} left`);
  return parts.join(' · ');
}

export function usageText(usage: Usage): string {
  return `${usage.freeRemaining} of ${usage.freeLimit} free decisions left today · ${counted(usage.passCredits, 'pass credit')} · resets ${usage.resetsAt}`;
}

/** The contract's sentence and code, as the HTTP API answers them. */
export function errorResult(error: ServiceError): CallToolResult {
  const retry = error.retryAfter !== undefined ? `; retry after ${Math.max(1, Math.ceil(error.retryAfter))} s` : '';
  return { content: [{ type: 'text', text: `${error.message} (${error.code}${retry})` }], isError: true };
}

/**
 * A success: the record as `structuredContent`, the human line, and the record again
 * as JSON text, which the MCP specification asks of structured results for clients
 * (2025-03-26 ones) that do not read `structuredContent`.
 */
export function successResult(record: DecisionResponse | Usage, text: string, json = JSON.stringify(record)): CallToolResult {
  return {
    content: [
      { type: 'text', text },
      { type: 'text', text: json },
    ],
    structuredContent: record as unknown as Record<string, unknown>,
  };
}
