import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { modelPath } from '../../bench/gguf/generate.js';
import { runDecision } from '../../src/decision/run.js';
import { DecisionRequest } from '../../src/contract/decision.js';
import { createLocalEngine } from '../../src/engine/local/local.js';
import { LOCAL_RUNTIME, NEEDS_LOCAL_RUNTIME } from '../support/local-runtime.js';
import { CHOICE } from '../support/requests.js';

/**
 * bench/gguf/generate.js writes the bench's realistic-size models, and at its `test`
 * size (a few MB) the tests' tiny model; here through its command line into a folder
 * of its own: the file must be a GGUF that node-llama-cpp loads, whose vocabulary
 * tokenises as a llama model's does, and that answers a decision with ordinary
 * probabilities.
 */
describe.skipIf(!LOCAL_RUNTIME)(`the bench's GGUF generator ${NEEDS_LOCAL_RUNTIME}`, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-gguf-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const generate = () => execFileSync(process.execPath, ['bench/gguf/generate.js', 'test', '--dir', dir], { encoding: 'utf8' });
  const file = modelPath('test', undefined, dir);

  it('writes a model with a vocabulary of its own that loads, tokenises words and letters whole, and answers', async () => {
    expect(generate()).toMatch(new RegExp(`^${file.replace(/[.\\]/g, '\\$&')}: [\\d.]+ M parameters, [\\d.]+ MB, written in`));
    expect(fs.readdirSync(dir)).toEqual([path.basename(file)]); // no part file left behind

    const { getLlama, readGgufFileInfo } = await import('node-llama-cpp');
    const info = await readGgufFileInfo(file);
    expect(info.metadata.general.architecture).toBe('llama');
    expect(info.metadata.tokenizer.ggml.model).toBe('llama');
    expect(info.metadata.tokenizer.ggml.tokens).toHaveLength(32_000);

    // What the local engine relies on: a letter is one token (answers are read off
    // them), and a prompt's words take about as many tokens as in a real vocabulary.
    const llama = await getLlama({ gpu: false });
    try {
      const model = await llama.loadModel({ modelPath: file });
      for (const letter of 'ABCDEFGHIJKLMNOPQRST0123456789')
        expect(model.tokenize(letter, false, 'trimLeadingSpace'), letter).toHaveLength(1);
      const sentence = 'Given the text, decide which of the options best answers this question.';
      const tokens = model.tokenize(sentence);
      expect(tokens.length).toBeLessThanOrEqual(sentence.split(' ').length + 2);
      expect(model.detokenize(tokens)).toBe(sentence);
      await model.dispose();
    } finally {
      await llama.dispose();
    }

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
