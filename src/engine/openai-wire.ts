import { z } from 'zod';
import { EngineError } from './engine.js';
import type { TopLogprob } from './labels.js';

/**
 * Reading a Chat Completions answer, in either of the openai engine's modes. Only the
 * fields used are validated; servers add plenty of their own.
 */

const topLogprob = z.object({ token: z.string(), logprob: z.number().max(1e-3) });
const logprobCompletion = z.object({
  choices: z
    .array(
      z.object({
        logprobs: z.object({ content: z.array(z.object({ top_logprobs: z.array(topLogprob) })).nullish() }).nullish(),
      }),
    )
    .min(1),
});
const statedCompletion = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish(), refusal: z.string().nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
});
const promptTokens = z.object({ usage: z.object({ prompt_tokens: z.number().int().nonnegative() }) });

function bad(provider: string, id: string, problem: string): EngineError {
  return new EngineError('bad_response', `${provider} engine's answer to "${id}" ${problem}`);
}

/**
 * The server's count of the prompt's tokens, or null when it gives none. Counts are
 * bookkeeping, not the answer: a malformed one is taken as none given, and the engine
 * counts the prompt itself.
 */
function inputTokensOf(data: unknown): number | null {
  const usage = promptTokens.safeParse(data);
  return usage.success ? usage.data.usage.prompt_tokens : null;
}

export function readLogprobs(data: unknown, provider: string, id: string): { top: TopLogprob[]; inputTokens: number | null } {
  const parsed = logprobCompletion.safeParse(data);
  if (!parsed.success) throw bad(provider, id, 'is not a chat completion');
  const { logprobs } = parsed.data.choices[0];
  // Absent or null: the server ignores `logprobs: true`, as many do. Say what to do about it.
  if (logprobs == null) {
    throw bad(provider, id, 'returned no logprobs; set DECIDE_OPENAI_PROBABILITIES=verbalized for servers that do not return them');
  }
  const top = logprobs.content?.[0]?.top_logprobs;
  if (!top) throw bad(provider, id, 'carries no top_logprobs (does the server support top_logprobs?)');
  return { top, inputTokens: inputTokensOf(data) };
}

/** A whole-message code fence, which servers that ignore `response_format` like to add. */
const FENCED = /^```(?:json)?\s*([\s\S]*?)\s*```$/;

/** The JSON object the model stated (validated by verbalized.ts), and the server's count of the prompt tokens. */
export function readStatedProbabilities(data: unknown, provider: string, id: string): { stated: unknown; inputTokens: number | null } {
  const parsed = statedCompletion.safeParse(data);
  if (!parsed.success) throw bad(provider, id, 'is not a chat completion');
  const { message, finish_reason } = parsed.data.choices[0];
  if (finish_reason === 'length') throw bad(provider, id, 'was cut off at max_tokens before its probabilities were complete');
  if (message.refusal) throw bad(provider, id, 'is a refusal');
  const content = message.content?.trim();
  if (!content) throw bad(provider, id, 'has no content');
  let stated: unknown;
  try {
    stated = JSON.parse(FENCED.exec(content)?.[1] ?? content);
  } catch {
    throw bad(provider, id, 'is not JSON, though a json_schema answer was asked for');
  }
  return { stated, inputTokens: inputTokensOf(data) };
}
