import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  RateLimitError,
  TypeSafeClient,
  type Fetch,
  type SystemOneRequest,
} from '@typesafe-ai/sdk';
import { Agent, fetch as undiciFetch } from 'undici';
import { Deadline } from './deadline.js';
import type { Engine, EngineReply, Questions } from './engine.js';
import { RateLimited, statusFailure, transportFailure, withoutKey } from './http-failures.js';
import { withOneRateLimitRetry } from './retry.js';
import { readReply, toWireQuestions } from './systemone-wire.js';

export interface SystemOneEngineOptions {
  /** Server root; requests go to `{baseUrl}/v1/systemone`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Per `ask`, including a retry after 429. Default 30000. */
  timeoutMs?: number;
  /** Connections kept to the server. Default 32. */
  maxConnections?: number;
}

const PROVIDER = 'systemone';

/**
 * Any `POST /v1/systemone` server, through the TypeSafe SDK: one call answers every
 * question of a state. The SDK's own retries are off (`maxRetries: 0`): it would fall
 * back to its backoff when `Retry-After` is long and cannot see the decision's deadline,
 * so both engines share `withOneRateLimitRetry` instead.
 */
export function createSystemOneEngine(options: SystemOneEngineOptions): Engine {
  const { apiKey, model, timeoutMs = 30_000 } = options;
  const baseURL = options.baseUrl.replace(/\/+$/, '');
  const agent = new Agent({
    connections: options.maxConnections ?? 32,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
  });

  /** One HTTP attempt. A fresh client per attempt lets its fetch tell us whether a status line arrived. */
  async function attempt(request: SystemOneRequest, deadline: Deadline): Promise<unknown> {
    let status: number | undefined;
    const fetch: Fetch = async (input, init) => {
      const headers = { ...(init?.headers as Record<string, string> | undefined) };
      // The SDK insists on a key; servers that need none (local vLLM) should not get a fake one.
      if (!apiKey) for (const name of Object.keys(headers)) if (name.toLowerCase() === 'authorization') delete headers[name];
      const response = await undiciFetch(input, { ...(init as object), headers, dispatcher: agent });
      status = response.status;
      return response as unknown as Response;
    };
    const client = new TypeSafeClient({
      baseURL,
      apiKey: apiKey || 'none',
      defaultModel: model,
      logLevel: 'off',
      retry: { maxRetries: 0 },
      timeout: Math.max(1, deadline.remainingMs()),
      fetch,
    });
    try {
      return await client.systemOne(request, { signal: deadline.signal });
    } catch (err) {
      if (deadline.expired || err instanceof APIUserAbortError || err instanceof APITimeoutError) throw deadline.failure();
      if (err instanceof RateLimitError) throw new RateLimited(PROVIDER, err.retryAfterMs);
      if (err instanceof APIError) throw statusFailure(PROVIDER, err.status, err.headers.get('retry-after'));
      if (err instanceof APIConnectionError) throw transportFailure(PROVIDER, err.cause, status);
      throw err;
    }
  }

  return {
    name: PROVIDER,
    model,
    async ask<Q extends Questions>(state: string, questions: Q, signal: AbortSignal): Promise<EngineReply<Q>> {
      // The SDK rejects an empty question set; nothing asked is nothing spent.
      if (Object.keys(questions).length === 0) return { answers: {} as EngineReply<Q>['answers'], inputTokens: 0 };
      const deadline = new Deadline(signal, timeoutMs, PROVIDER);
      const request = { model, state, questions: toWireQuestions(questions) } as SystemOneRequest;
      try {
        const data = await withOneRateLimitRetry(() => attempt(request, deadline), deadline);
        return readReply(questions, data);
      } catch (err) {
        throw withoutKey(err, apiKey);
      } finally {
        deadline.dispose();
      }
    },
    async close() {
      await agent.destroy();
    },
  };
}
