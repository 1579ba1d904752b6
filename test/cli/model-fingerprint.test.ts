import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { calibrationModel } from '../../src/cli/engine-identity.js';
import { modelFingerprint } from '../../src/cli/model-fingerprint.js';

/**
 * Fitted temperatures were keyed by a local model's file name alone: another file of
 * the same name (a re-quantised download, another fine-tune) was served the first
 * one's fits. The key now carries a fingerprint of the file's content.
 */
describe('the model as the ledger keys its temperatures', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  /** `name` in a fresh folder, `size` bytes of `fill` with `marker` at `at`. */
  const file = (name: string, size: number, marker: number, at: number) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-model-'));
    dirs.push(dir);
    const bytes = Buffer.alloc(size, 7);
    bytes[at] = marker;
    const where = path.join(dir, name);
    fs.writeFileSync(where, bytes);
    return where;
  };

  it('tells apart files of one name whose content differs at either end, and keeps it for one that does not', () => {
    const MiB = 1024 * 1024;
    const a = file('model.gguf', 3 * MiB, 1, 10);
    const b = file('model.gguf', 3 * MiB, 2, 10); // another header
    const c = file('model.gguf', 3 * MiB, 1, 3 * MiB - 5); // other last tensors
    const a2 = file('model.gguf', 3 * MiB, 1, 10); // the same bytes elsewhere
    const small = file('model.gguf', 100, 1, 10); // smaller than the two ends
    const keys = [a, b, c, small].map((p) => calibrationModel({ DECIDE_MODEL: p }, { name: 'local', model: 'model' }));
    expect(new Set(keys).size).toBe(4);
    for (const key of keys) expect(key).toMatch(/^model@[0-9a-f]{16}$/);
    expect(modelFingerprint(a2)).toBe(modelFingerprint(a));
  });

  it("names a provider's model as it is, the default model by its checksum, and an unreadable file by its name", () => {
    expect(calibrationModel({ DECIDE_MODEL: 'gpt-x' }, { name: 'openai', model: 'gpt-x' })).toBe('gpt-x');
    expect(calibrationModel({}, { name: 'local', model: 'qwen2.5-1.5b-instruct-q4_k_m' })).toBe(
      'qwen2.5-1.5b-instruct-q4_k_m@6a1a2eb6d15622bf',
    );
    expect(calibrationModel({ DECIDE_MODEL: '/nowhere/m.gguf' }, { name: 'local', model: 'm' })).toBe('m');
  });
});
