import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDecision } from '../../src/decision/run.js';
import { DecisionRequest } from '../../src/contract/decision.js';
import { createLocalEngine } from '../../src/engine/local/local.js';
import { LOCAL_RUNTIME, NEEDS_LOCAL_RUNTIME } from '../support/local-runtime.js';
import { CHOICE } from '../support/requests.js';
import { TINY_MODEL } from '../support/service.js';

/**
 * bench/gguf/generate.js writes the bench's realistic-size models; here at its `test`
 * size (a few MB), which takes the same path: the file must be a GGUF that
 * node-llama-cpp loads and that answers a decision with ordinary probabilities.
 */
describe.skipIf(!LOCAL_RUNTIME)(`the bench's GGUF generator ${NEEDS_LOCAL_RUNTIME}`, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-gguf-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const generate = () =>
    execFileSync(process.execPath, ['bench/gguf/generate.js', 'test', '--dir', dir], {
      encoding: 'utf8',
      env: { ...process.env, BENCH_TINY_MODEL: TINY_MODEL },
    });

  it('writes a model with the tiny model\'s tokenizer that loads and answers', async () => {
    expect(generate()).toMatch(/decide-bench-test-q4_0-v2\.gguf: [\d.]+ M parameters, [\d.]+ MB, written in/);
    const file = path.join(dir, 'decide-bench-test-q4_0-v2.gguf');
    expect(fs.readdirSync(dir)).toEqual(['decide-bench-test-q4_0-v2.gguf']); // no part file left behind

    const { readGgufFileInfo } = await import('node-llama-cpp');
    const [made, tiny] = await Promise.all([readGgufFileInfo(file), readGgufFileInfo(TINY_MODEL)]);
    expect(made.metadata.general.architecture).toBe('llama');
    expect(made.metadata.tokenizer).toEqual(tiny.metadata.tokenizer);

    const engine = await createLocalEngine({ modelPath: file });
    try {
      const reply = await runDecision(DecisionRequest.parse(CHOICE), engine, { signal: new AbortController().signal, concurrency: 8 });
      expect('probabilities' in reply.result).toBe(true);
      const p = 'probabilities' in reply.result ? Object.values(reply.result.probabilities) : [];
      expect(p.every(Number.isFinite)).toBe(true);
      expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
      expect(reply.inputTokens).toBeGreaterThan(0);
    } finally {
      await engine.close?.();
    }
  });

  it('reuses a file that is already there', () => {
    expect(generate()).toMatch(/already there/);
  });
});
