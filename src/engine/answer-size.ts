import type { Dispatcher } from 'undici';
import { EngineError } from './engine.js';

/**
 * The most read from any engine's HTTP answer: 1 MiB. A real answer is a few KB (a
 * one-token completion with 20 top logprobs is ~3 KB, a System One reply of a stress
 * decision's three questions under 1 KB, a tool call of six numbers less), so 1 MiB
 * leaves a provider two orders of magnitude of verbosity while a decision can no
 * longer take the server's memory with it: reading a 300 MB answer whole cost
 * 1.2 GB of RSS. An engine keeps at most 64 connections, so all the answers being
 * read at once hold at most 64 MiB.
 */
export const MAX_ANSWER_BYTES = 1024 * 1024;
export const MAX_ANSWER_TEXT = '1 MiB';

type Body = Dispatcher.ResponseData['body'];

/** Thrown by readCapped; the caller decides what an oversized body means. */
export class AnswerTooLarge extends Error {
  constructor() {
    super(`answer is larger than ${MAX_ANSWER_TEXT}`);
    this.name = 'AnswerTooLarge';
  }
}

/**
 * The body as text, read only while it stays within MAX_ANSWER_BYTES: a declared
 * `Content-Length` over it is refused before a byte is read, and a chunked body is
 * counted as it arrives. Either way the body is destroyed at once, which aborts the
 * request and closes the connection rather than draining the rest, so memory and
 * time stay bounded whatever the provider keeps sending.
 */
export async function readCapped(body: Body, contentLength: string | string[] | undefined): Promise<string> {
  const declared = Number(Array.isArray(contentLength) ? contentLength[0] : contentLength);
  if (Number.isFinite(declared) && declared > MAX_ANSWER_BYTES) throw cut(body);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_ANSWER_BYTES) throw cut(body);
    chunks.push(chunk as Buffer);
  }
  // TextDecoder drops a leading BOM, as undici's body.text() did.
  return new TextDecoder().decode(Buffer.concat(chunks, size));
}

function cut(body: Body): AnswerTooLarge {
  // undici turns destroy() into a RequestAbortedError 'error' event; nobody else listens now.
  body.on('error', () => undefined);
  body.destroy();
  return new AnswerTooLarge();
}

/** The engine failure for an oversized success answer: 502 engine_bad_response. */
export function tooLargeFailure(provider: string): EngineError {
  return new EngineError(
    'bad_response',
    `${provider} engine's answer is larger than ${MAX_ANSWER_TEXT}, the most read from an engine; it was cut off there`,
  );
}
