import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChecksumError, fetchModelFile, type ModelFile } from '../../../src/engine/local/download.js';
import { startFileHost, type FileHostFake } from '../../fakes/file-host-fake.js';
import { TINY_MODEL } from '../../support/service.js';

const DATA = fs.readFileSync(TINY_MODEL);
const SHA256 = createHash('sha256').update(DATA).digest('hex');

describe('fetching a model file once, resumably, checksum-verified', () => {
  let host: FileHostFake;
  let dir: string;
  let target: string;
  let file: ModelFile;
  beforeAll(async () => {
    host = await startFileHost(DATA);
    file = { url: host.url, bytes: DATA.length, sha256: SHA256 };
  });
  afterAll(() => host.close());
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-fetch-'));
    target = path.join(dir, 'models', 'model.gguf');
    host.ranges.length = 0;
    host.script();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('fetches the file, reports progress up to the full size, and leaves no partial file', async () => {
    const seen: number[] = [];
    await fetchModelFile(file, target, (received, total) => {
      expect(total).toBe(DATA.length);
      seen.push(received);
    });
    expect(fs.readFileSync(target).equals(DATA)).toBe(true);
    expect(seen.at(-1)).toBe(DATA.length);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(fs.readdirSync(path.dirname(target))).toEqual(['model.gguf']);
  });

  it('does nothing when the file is already in place', async () => {
    await fetchModelFile(file, target);
    await fetchModelFile(file, target);
    expect(host.ranges).toHaveLength(1);
  });

  it('resumes with a Range request after the connection drops', async () => {
    host.script({ cutAfter: 700_000 }, {});
    await fetchModelFile(file, target);
    expect(host.ranges[0]).toBe('');
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(host.ranges[1])?.[1]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThanOrEqual(700_000);
    expect(fs.readFileSync(target).equals(DATA)).toBe(true);
  });

  it('resumes a partial file left by an earlier run', async () => {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(`${target}.part`, DATA.subarray(0, 1_000_000));
    await fetchModelFile(file, target);
    expect(host.ranges).toEqual(['bytes=1000000-']);
    expect(fs.readFileSync(target).equals(DATA)).toBe(true);
  });

  it('starts over when the host ignores the range', async () => {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(`${target}.part`, Buffer.alloc(500_000, 1));
    host.script({ ignoreRange: true });
    await fetchModelFile(file, target);
    expect(fs.readFileSync(target).equals(DATA)).toBe(true);
  });

  it('keeps nothing whose checksum is wrong, and says what it expected', async () => {
    const wrong = { ...file, sha256: '0'.repeat(64) };
    const error = await fetchModelFile(wrong, target).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChecksumError);
    expect((error as Error).message).toContain(`expected ${DATA.length} bytes with SHA-256 ${'0'.repeat(64)}`);
    expect((error as Error).message).toContain(SHA256);
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.existsSync(`${target}.part`)).toBe(false);
    expect(host.ranges).toHaveLength(1); // a wrong file is not fetched again and again
  });

  it('gives up after three failed attempts, naming the HTTP status', async () => {
    host.script({ status: 404 });
    await expect(fetchModelFile(file, target)).rejects.toThrow('the server answered HTTP 404');
    expect(host.ranges).toHaveLength(3);
    expect(fs.existsSync(target)).toBe(false);
  });

  it('fails cleanly when nothing listens', async () => {
    const offline = { ...file, url: 'http://127.0.0.1:9/model.gguf' };
    await expect(fetchModelFile(offline, target)).rejects.toThrow();
    expect(fs.existsSync(target)).toBe(false);
  });
});
