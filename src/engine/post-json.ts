import { request } from 'undici';
import type { ProxySettings } from '../config/proxy.js';
import { shownUrl, withoutUrlSecrets } from '../config/shown-url.js';
import { describeFailure } from '../net/failure.js';
import { outboundAgent } from '../net/outbound.js';
import { AnswerTooLarge, readCapped, tooLargeFailure } from './answer-size.js';
import type { Deadline } from './deadline.js';
import { EngineError } from './engine.js';
import { statusFailure, transportFailure, type RateLimited } from './http-failures.js';

/**
 * Reads a provider's own error JSON (e.g. Anthropic's `{"type":"error","error":{…}}`)
 * to classify a non-2xx status. `body` is the parsed JSON, or undefined when the body
 * was empty, unreadable or not JSON. The result must not quote the body: providers
 * echo keys in error messages.
 */
export type ClassifyStatus = (status: number, retryAfter: string | string[] | undefined, body: unknown) => EngineError | RateLimited;

export interface JsonPoster {
  /** One HTTP attempt: the parsed 2xx JSON body, or an EngineError / RateLimited. `extraHeaders` join this call's. */
  post(payload: unknown, deadline: Deadline, extraHeaders?: Record<string, string>): Promise<unknown>;
  /** A GET of `url` (a models list) with the same headers, pool and proxy: resolves on a 2xx, else an EngineError naming `url` and why. */
  probe(url: string, signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/**
 * The HTTP side of the engines that speak JSON over undici (systemone, openai, anthropic): one
 * keep-alive pool per engine, and every way a call can fail mapped through
 * http-failures, so the engines differ only in what they send and how they read it.
 */
export function jsonPoster(options: {
  url: string;
  headers: Record<string, string>;
  provider: string;
  /** Connections kept to the provider; a stress decision makes ~15 calls at once. */
  maxConnections: number;
  /** Without it the error body is drained unread and the status alone decides. */
  classify?: ClassifyStatus;
  /** The request body's JSON; default JSON.stringify (the systemone wire keeps its key order). */
  serialize?: (payload: unknown) => string;
  /** The proxy its calls go through (config/proxy.ts); none when absent. */
  proxy?: ProxySettings;
}): JsonPoster {
  const { url, provider, classify, serialize = JSON.stringify, proxy } = options;
  const headers = { 'content-type': 'application/json', accept: 'application/json', ...options.headers };
  const { 'content-type': _sent, ...getHeaders } = headers;
  const agent = outboundAgent({ connections: options.maxConnections, keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 }, proxy);

  async function refusal(response: Awaited<ReturnType<typeof request>>, deadline: Deadline): Promise<EngineError | RateLimited> {
    const { statusCode } = response;
    const retryAfter = response.headers['retry-after'];
    if (!classify) {
      // Drain so the keep-alive connection is reusable; the body itself is never quoted.
      // dump() reads at most 128 KiB and closes the connection past that.
      await response.body.dump().catch(() => undefined);
      return statusFailure(provider, statusCode, retryAfter);
    }
    let body: unknown;
    try {
      body = JSON.parse(await readCapped(response.body, response.headers['content-length']));
    } catch {
      // An oversized error body is as unreadable as one that is not JSON: the status decides.
      if (deadline.expired) return deadline.failure();
      body = undefined;
    }
    return classify(statusCode, retryAfter, body);
  }

  return {
    async post(payload, deadline, extraHeaders) {
      let response: Awaited<ReturnType<typeof request>>;
      try {
        response = await request(url, {
          method: 'POST',
          headers: extraHeaders ? { ...headers, ...extraHeaders } : headers,
          body: serialize(payload),
          signal: deadline.signal,
          dispatcher: agent,
        });
      } catch (err) {
        throw deadline.expired ? deadline.failure() : transportFailure(provider, err);
      }
      const { statusCode } = response;
      if (statusCode < 200 || statusCode >= 300) throw await refusal(response, deadline);
      let text: string;
      try {
        text = await readCapped(response.body, response.headers['content-length']);
      } catch (err) {
        if (err instanceof AnswerTooLarge) throw tooLargeFailure(provider);
        throw deadline.expired ? deadline.failure() : transportFailure(provider, err, statusCode);
      }
      try {
        return JSON.parse(text);
      } catch {
        throw new EngineError('bad_response', `${provider} engine answered with a body that is not JSON`);
      }
    },
    async probe(target, signal) {
      // The operator reads these at start and in the log: the URL named, its secrets masked.
      const shown = shownUrl(target);
      let response: Awaited<ReturnType<typeof request>>;
      try {
        response = await request(target, { method: 'GET', headers: getHeaders, signal, dispatcher: agent });
      } catch (err) {
        if (signal.aborted) throw new EngineError('timeout', `${provider} engine did not answer ${shown} in time`);
        const why = withoutUrlSecrets(describeFailure(err, proxy), target);
        throw new EngineError('unavailable', `${provider} engine cannot be reached at ${shown}: ${why}`);
      }
      await response.body.dump().catch(() => undefined);
      const status = response.statusCode;
      if (status >= 200 && status < 300) return;
      if (status === 401 || status === 403)
        throw new EngineError('bad_response', `${provider} engine refused the key at ${shown} (HTTP ${status})`);
      throw new EngineError(status >= 500 ? 'unavailable' : 'bad_response', `${provider} engine answered HTTP ${status} at ${shown}`);
    },
    async close() {
      // In-flight calls belong to decisions that are being abandoned; don't wait for them.
      await agent.destroy();
    },
  };
}
