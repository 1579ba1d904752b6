// llama.cpp's OpenAI-compatible server, as built by scripts/llama-server.mjs, for the
// bench row that measures how much of a decision's prompts it serves from its cache
// (rows/llama-server.js) and for test/engine/llama-server.test.ts.
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { freePort, startServer, stop } from '../children.js';

/** The pinned version scripts/llama-server.mjs builds; its binary lives under it. */
export const LLAMA_SERVER_VERSION = '0.3.36';

/** Where scripts/llama-server.mjs puts the binary. */
export function llamaServerBinary(env = process.env) {
  const dir = path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'decide', 'llama-server');
  return path.join(dir, LLAMA_SERVER_VERSION, 'llama-server');
}

/** Said wherever the binary is missing: how to get it. */
export const BUILD_HINT = 'run `node scripts/llama-server.mjs` to build it';

/** The binary, or why not: a line a skipped row or test prints. */
export function findLlamaServer() {
  const binary = llamaServerBinary();
  if (existsSync(binary)) return { binary };
  // CI builds it (.ci/run) and sets this, so a missing server fails the test there instead of skipping it.
  if (process.env.DECIDE_REQUIRE_LLAMA_SERVER === '1')
    throw new Error(`no llama-server at ${binary} and DECIDE_REQUIRE_LLAMA_SERVER=1: ${BUILD_HINT}`);
  return { skipped: `no llama-server at ${binary}: ${BUILD_HINT}` };
}

/**
 * SmolLM2's own chat template (ChatML), its assistant turn opened with "Answer:". Asked
 * to "reply with exactly one label", SmolLM2-135M-Instruct starts an explanation as often
 * as a label (0.42 of its first token's mass on A, B or C; 0.17 on Yes or No for the
 * sufficiency probe), below the half decide's openai engine requires; with the turn
 * opened so, 0.91 and 0.63. A server-side setting, as an operator of a small model would
 * make it: decide's requests stay plain chat completions, and what is cached (the prompt
 * up to the user message's end) is the same either way.
 */
export const ANSWER_PRIMED_CHATML =
  "{%- for message in messages -%}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}{%- endfor -%}" +
  "{%- if add_generation_prompt -%}{{ '<|im_start|>assistant\nAnswer:' }}{%- endif -%}";

/**
 * The same for Gemma 3 (scripts/packed-checks.mjs): its own turns, the system message
 * put at the head of the user's turn as Gemma's template does, the model's turn opened
 * with "The answer is". On one two-option question Gemma 3 270M put 0.03 of its first
 * token's mass on the labels with its own template, 0.30 after "Answer:", 0.57 after
 * "The answer is"; on real items some readings still fall below the half.
 */
export const ANSWER_PRIMED_GEMMA =
  "{{ bos_token }}{{ '<start_of_turn>user\n' }}{%- for message in messages -%}{{ message['content'] }}{%- if not loop.last -%}{{ '\n\n' }}{%- endif -%}{%- endfor -%}" +
  "{{ '<end_of_turn>\n' }}{%- if add_generation_prompt -%}{{ '<start_of_turn>model\nThe answer is' }}{%- endif -%}";

/**
 * Starts llama-server on `model` at a free loopback port, niced, with `threads` threads
 * and `slots` parallel slots (-np), `chatTemplate` instead of the model's own if given, and waits until /health answers 200 (the model is
 * loaded). One slot serialises the calls, so each call finds the previous calls of its
 * decision in the cache (a call that runs beside them on another slot finds nothing);
 * the host-memory prompt cache (--cache-ram, on by default) keeps the prompts a slot
 * moved on from, so a call can resume from any earlier one.
 */
export async function startLlamaServer({ binary, model, threads = 2, slots = 1, context = 4096, chatTemplate, extra = [] }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = [
    '-n',
    '10',
    binary,
    '--model',
    model,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--ctx-size',
    String(context * slots),
    '--parallel',
    String(slots),
    '--threads',
    String(threads),
    '--threads-batch',
    String(threads),
    '--no-webui',
    ...(chatTemplate ? ['--chat-template', chatTemplate] : []),
    ...extra,
  ];
  const srv = await startServer('llama-server', 'nice', args, {
    timeoutMs: 120_000,
    stdoutToNull: { url, readyOn: /listening on http/ },
  });
  await waitHealthy(url, 120_000);
  return { url, child: srv.child, pid: srv.child.pid, stop: () => stop(srv.child, 5_000) };
}

async function waitHealthy(url, timeoutMs) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await request(`${url}/health`);
      await res.body.dump();
      if (res.statusCode === 200) return;
    } catch {
      // not accepting yet
    }
    if (Date.now() > until) throw new Error(`llama-server at ${url} not healthy within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A loopback pass-through in front of `upstream` that notes, for every chat completion
 * it carries, the server's own count of prompt tokens and of those it took from its
 * cache (`usage.prompt_tokens`, `usage.prompt_tokens_details.cached_tokens`). decide's
 * openai engine reads only the first; the recorder measures the server from outside.
 */
export async function startUsageRecorder(upstream) {
  const calls = [];
  const server = createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const forwarded = await request(`${upstream}${req.url}`, {
        method: req.method,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
      });
      const text = await forwarded.body.text();
      if (req.url.endsWith('/chat/completions') && forwarded.statusCode === 200) {
        const { usage } = JSON.parse(text);
        calls.push({ prompt: usage.prompt_tokens, cached: usage.prompt_tokens_details?.cached_tokens ?? 0 });
      }
      res.writeHead(forwarded.statusCode, { 'content-type': forwarded.headers['content-type'] ?? 'application/json' });
      res.end(text);
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(error));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    /** The calls so far; `since(n)` sums those after the first n. */
    count: () => calls.length,
    since(n) {
      const some = calls.slice(n);
      const prompt = some.reduce((sum, c) => sum + c.prompt, 0);
      const cached = some.reduce((sum, c) => sum + c.cached, 0);
      return { calls: some.length, prompt, cached, share: prompt ? cached / prompt : 0, each: some };
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
