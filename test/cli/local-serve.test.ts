import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODEL } from '../../src/engine/local/default-model.js';
import { startFileHost, type FileHostFake } from '../fakes/file-host-fake.js';
import { startProxyFake } from '../fakes/proxy-fake.js';
import { CHOICE } from '../support/requests.js';
import { assertBuilt, killChildren, openaiEnv, ROOT, runCli, runJson, startServe, tempDb, type TempDb } from '../support/cli.js';
import { LOCAL_RUNTIME, NEEDS_LOCAL_RUNTIME } from '../support/local-runtime.js';
import { TINY_MODEL, TINY_MODEL_NAME } from '../support/service.js';
import { scaled } from '../support/time.js';

/** `decide serve` on the embedded engine: `--model`, the default model in the cache, and every way it cannot start. */
describe('decide serve on the local engine', () => {
  let tmp: TempDb;
  let host: FileHostFake;
  beforeAll(async () => {
    assertBuilt();
    host = await startFileHost(fs.readFileSync(TINY_MODEL), DEFAULT_MODEL.fileName);
  });
  afterAll(() => host.close());
  afterEach(async () => {
    await killChildren();
    tmp?.remove();
    host.ranges.length = 0;
  });
  const fresh = () => (tmp = tempDb());
  /** A cache folder of this test's own, and the default model's place in it. */
  const cache = () => {
    const dir = path.join(fresh().dir, 'cache');
    return { env: { XDG_CACHE_HOME: dir }, model: path.join(dir, 'decide', 'models', DEFAULT_MODEL.fileName) };
  };

  const decide = async (url: string, db: string) => {
    const { key } = await runJson(['key', 'create', '--create', '--db', db]);
    const res = await fetch(`${url}/v1/decisions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(CHOICE),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  // serve looks for node-llama-cpp before anything else (a model file, a download), so
  // every test here needs it but the ones that hide it on purpose.
  it.skipIf(!LOCAL_RUNTIME)(`--model PATH.gguf: starts on that file, decides, and stops cleanly ${NEEDS_LOCAL_RUNTIME}`, async () => {
    const { db } = fresh();
    const serving = await startServe(['--db', db, '--model', TINY_MODEL], {}, scaled(20_000));
    expect(await serving.waitForStderr(/engine local/)).toContain(
      `engine local (model ${TINY_MODEL_NAME}, debias reverse, calibration none)`,
    );
    const { status, body } = await decide(serving.url, db);
    expect(status).toBe(200);
    expect(body.model).toBe(TINY_MODEL_NAME);
    expect((await serving.stop()).code).toBe(0);
  });

  it.skipIf(!LOCAL_RUNTIME)(
    `--threads over DECIDE_THREADS, said at start with the backend, context size and one decision at a time ${NEEDS_LOCAL_RUNTIME}`,
    async () => {
      const { db } = fresh();
      const serving = await startServe(['--db', db, '--model', TINY_MODEL, '--threads', '3'], { DECIDE_THREADS: '2' }, scaled(20_000));
      const line = await serving.waitForStderr(/local engine:/);
      expect(line).toMatch(/^decide: local engine: 3 threads on (CPU|CUDA|Vulkan|Metal), context \d+ tokens, one decision at a time$/);
      expect((await decide(serving.url, db)).status).toBe(200);
    },
  );

  it.skipIf(!LOCAL_RUNTIME)(`DECIDE_THREADS alone sets the threads ${NEEDS_LOCAL_RUNTIME}`, async () => {
    const { db } = fresh();
    const serving = await startServe(['--db', db, '--model', TINY_MODEL], { DECIDE_THREADS: '1' }, scaled(20_000));
    expect(await serving.waitForStderr(/local engine:/)).toMatch(/local engine: 1 thread on /);
  });

  it('a bad DECIDE_THREADS: exit 78 naming it, before any model is fetched', async () => {
    const { env } = cache();
    const result = await runCli(['serve', '--port', '0', '--db', tmp.db], {
      ...env,
      DECIDE_DEFAULT_MODEL_URL: host.url,
      DECIDE_THREADS: '0',
    });
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('DECIDE_THREADS must be a whole number of threads from 1 to 256; got "0"');
    expect(host.ranges).toEqual([]);
  });

  it('a bad --threads: exit 64 naming the flag, in the words DECIDE_THREADS is refused with', async () => {
    const { db } = fresh();
    const result = await runCli(['serve', '--port', '0', '--db', db, '--model', TINY_MODEL, '--threads', 'two']);
    expect(result.code).toBe(64);
    expect(result.stderr).toBe('decide: --threads must be a whole number of threads from 1 to 256; got "two"\n');
  });

  it.skipIf(!LOCAL_RUNTIME)(
    `no engine configured and the default model in the cache: starts on it without any download ${NEEDS_LOCAL_RUNTIME}`,
    async () => {
      const { env, model } = cache();
      fs.mkdirSync(path.dirname(model), { recursive: true });
      fs.copyFileSync(TINY_MODEL, model);
      const serving = await startServe(['--db', tmp.db], { ...env, DECIDE_DEFAULT_MODEL_URL: host.url }, scaled(20_000));
      expect(await serving.waitForStderr(/engine local/)).toContain(
        `engine local (model ${DEFAULT_MODEL.name}, debias reverse, calibration none)`,
      );
      expect((await decide(serving.url, tmp.db)).status).toBe(200);
      expect(host.ranges).toEqual([]);
    },
  );

  it.skipIf(!LOCAL_RUNTIME)(
    `offline with no default model: exit 69 saying what to download and where to put it ${NEEDS_LOCAL_RUNTIME}`,
    async () => {
      const { env, model } = cache();
      const result = await runCli(['serve', '--port', '0', '--db', tmp.db], env, scaled(20_000));
      expect(result.code).toBe(69);
      expect(result.stderr).toContain(`no engine configured: using the local engine with ${DEFAULT_MODEL.name} (1.1 GB)`);
      expect(result.stderr).toContain('cannot fetch the default model from http://127.0.0.1:9/unreachable.gguf');
      expect(result.stderr).toContain(`${DEFAULT_MODEL.bytes} bytes, SHA-256 ${DEFAULT_MODEL.sha256}`);
      expect(result.stderr).toContain(model);
      expect(result.stderr).toContain('--model PATH.gguf');
      expect(result.stdout).toBe('');
    },
  );

  it.skipIf(!LOCAL_RUNTIME)(
    `a mirror serving other bytes: the checksum refuses them and nothing is kept ${NEEDS_LOCAL_RUNTIME}`,
    async () => {
      const { env, model } = cache();
      const result = await runCli(['serve', '--port', '0', '--db', tmp.db], { ...env, DECIDE_DEFAULT_MODEL_URL: host.url }, scaled(20_000));
      expect(result.code).toBe(69);
      expect(result.stderr).toContain(`expected ${DEFAULT_MODEL.bytes} bytes with SHA-256 ${DEFAULT_MODEL.sha256}`);
      expect(result.stderr).toMatch(/fetching the model: +0% +\d+ \/ 1117 MB/);
      expect(fs.existsSync(model)).toBe(false);
      expect(fs.existsSync(`${model}.part`)).toBe(false);
    },
  );

  it.skipIf(!LOCAL_RUNTIME)(
    `behind a proxy: the download goes through HTTP_PROXY, and its refusal is said, naming the proxy ${NEEDS_LOCAL_RUNTIME}`,
    async () => {
      const proxy = await startProxyFake();
      try {
        proxy.requireAuth('ops:pw');
        const { env, model } = cache();
        const refused = await runCli(
          ['serve', '--port', '0', '--db', tmp.db],
          { ...env, DECIDE_DEFAULT_MODEL_URL: host.url, HTTP_PROXY: proxy.url },
          scaled(20_000),
        );
        expect(refused.code).toBe(69);
        expect(refused.stderr).toContain(
          `cannot fetch the default model from ${host.url}: the proxy refused the tunnel with HTTP 407: the proxy wants credentials, put user:password@ in its URL (through HTTP_PROXY=${proxy.url})`,
        );
        expect(host.ranges).toEqual([]);

        const through = await runCli(
          ['serve', '--port', '0', '--db', tmp.db],
          { ...env, DECIDE_DEFAULT_MODEL_URL: host.url, HTTP_PROXY: proxy.url.replace('//', '//ops:pw@') },
          scaled(20_000),
        );
        // The host serves other bytes than the default model's: fetched through the proxy, then refused by the checksum.
        expect(through.stderr).toContain(`expected ${DEFAULT_MODEL.bytes} bytes`);
        expect(proxy.seen.filter((line) => line === `CONNECT ${new URL(host.url).host}`).length).toBeGreaterThan(0);
        expect(host.ranges.length).toBeGreaterThan(0);
        expect(fs.existsSync(model)).toBe(false);
      } finally {
        await proxy.close();
      }
    },
  );

  it('without node-llama-cpp (an optional peer, not installed): exit 78 saying how to install it', async () => {
    const { db } = fresh();
    const hook = path.join(ROOT, 'test', 'support', 'hooks', 'without-node-llama-cpp.mjs');
    const result = await runCli(
      ['serve', '--port', '0', '--db', db, '--model', TINY_MODEL],
      { NODE_OPTIONS: `--import ${hook}` },
      scaled(20_000),
    );
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('the local engine needs node-llama-cpp, which is not installed');
    expect(result.stderr).toContain('npm install node-llama-cpp@3');
    expect(result.stdout).toBe('');
  });

  it('without node-llama-cpp, a remote engine still starts', async () => {
    const { db } = fresh();
    const hook = path.join(ROOT, 'test', 'support', 'hooks', 'without-node-llama-cpp.mjs');
    const serving = await startServe(['--db', db], { ...openaiEnv('http://127.0.0.1:9/v1', 'sk-x'), NODE_OPTIONS: `--import ${hook}` });
    expect(await serving.waitForStderr(/engine openai/)).toContain('engine openai');
  });

  it.skipIf(!LOCAL_RUNTIME)(`--model naming a missing file: exit 66 naming it ${NEEDS_LOCAL_RUNTIME}`, async () => {
    const { db, dir } = fresh();
    const missing = path.join(dir, 'missing.gguf');
    const result = await runCli(['serve', '--port', '0', '--db', db, '--model', missing], {}, scaled(20_000));
    expect(result.code).toBe(66);
    expect(result.stderr).toContain(`local engine: the model file ${missing} does not exist or cannot be read`);
    // The start failed: it leaves no ledger behind for operator commands to write to.
    expect(fs.readdirSync(dir).filter((name) => name.startsWith(path.basename(db)))).toEqual([]);
    expect((await runCli(['key', 'list', '--db', db])).code).toBe(66);
  });

  it.skipIf(!LOCAL_RUNTIME)(`DECIDE_MODEL naming a corrupt file: exit 66 saying it cannot be loaded ${NEEDS_LOCAL_RUNTIME}`, async () => {
    const { db, dir } = fresh();
    const corrupt = path.join(dir, 'corrupt.gguf');
    fs.writeFileSync(corrupt, 'this is not a model');
    // A ledger that was there before the start is the operator's: a failed start keeps it.
    expect((await runCli(['key', 'create', '--create', '--db', db])).code).toBe(0);
    const result = await runCli(['serve', '--port', '0', '--db', db], { DECIDE_MODEL: corrupt }, scaled(20_000));
    expect(result.code).toBe(66);
    expect(result.stderr).toContain(`local engine: cannot load the model ${corrupt}`);
    expect(result.stdout).toBe('');
    expect(JSON.parse((await runCli(['key', 'list', '--db', db, '--json'])).stdout)).toHaveLength(1);
  });
});
