import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODEL } from '../../src/engine/local/default-model.js';
import { startFileHost, type FileHostFake } from '../fakes/file-host-fake.js';
import { assertBuilt, killChildren, ROOT, runCli, tempDb, type TempDb } from '../support/cli.js';

/**
 * decide installed without node-llama-cpp, then `decide serve` with nothing configured:
 * it must say node-llama-cpp is missing before it fetches anything, not after a 1 GB
 * download.
 */
describe('decide serve without node-llama-cpp and without a model', () => {
  let host: FileHostFake;
  let tmp: TempDb;
  beforeAll(async () => {
    assertBuilt();
    host = await startFileHost(Buffer.alloc(1024, 1), DEFAULT_MODEL.fileName);
  });
  afterAll(() => host.close());
  afterEach(async () => {
    await killChildren();
    tmp?.remove();
  });

  it('exits 78 saying how to install it, and asks the model host for nothing', async () => {
    tmp = tempDb();
    const hook = path.join(ROOT, 'test', 'support', 'hooks', 'without-node-llama-cpp.mjs');
    const cache = path.join(tmp.dir, 'cache');
    const result = await runCli(['serve', '--port', '0', '--db', tmp.db], {
      NODE_OPTIONS: `--import ${hook}`,
      XDG_CACHE_HOME: cache,
      DECIDE_DEFAULT_MODEL_URL: host.url,
    });
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('the local engine needs node-llama-cpp');
    expect(result.stderr).not.toContain('fetch');
    expect(host.ranges).toHaveLength(0);
    expect(fs.existsSync(path.join(cache, 'decide'))).toBe(false);
  });
});
