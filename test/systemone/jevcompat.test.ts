import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openaiEnv, runJson, startServe, useServeFixture } from '../support/cli.js';
import { NEEDS_PYTHON_TOOLS, PYTHON_TOOLS } from '../support/python-tools.js';
import { scaled } from '../support/time.js';

/**
 * `decide serve` against jevcompat, the third-party conformance suite for System One
 * servers, as a new user would run it: `jevcompat test URL --key KEY`. The engine is
 * the openai engine on a loopback fake (deterministic answers that depend on the
 * prompt alone, as a model's should), so what is judged is decide's side of the wire.
 * It must be conformant: no MUST failed or untested, and no SHOULD failed.
 */
describe.skipIf(!PYTHON_TOOLS)(`jevcompat test against decide serve ${NEEDS_PYTHON_TOOLS}`, () => {
  const fixture = useServeFixture();

  it(
    'reports decide conformant: every MUST and every SHOULD it exercises passes',
    async () => {
      const { db, dir } = fixture.tmp;
      const server = await startServe(
        ['--db', db],
        openaiEnv(fixture.fake.url, 'sk-engine-for-jevcompat', { DECIDE_MODEL: 'qwen-loopback' }),
      );
      const { key, passId } = await runJson<{ key: string; passId: string }>(['key', 'create', '--create', '--db', db]);
      // The suite asks a few hundred questions; a funded pass pays what the free allowance does not.
      await runJson(['pass', 'fund', '--pass', passId, '--credits', '5000', '--db', db]);

      const report = path.join(dir, 'jevcompat.json');
      const run = await new Promise<{ code: number; output: string }>((resolve) =>
        execFile(
          PYTHON_TOOLS!.jevcompat,
          ['test', server.url, '--key', key, '--json', report, '--evidence', '3'],
          { env: { ...process.env, NO_COLOR: '1' }, timeout: scaled(300_000), maxBuffer: 16 * 1024 * 1024 },
          (error, stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, output: stdout + stderr }),
        ),
      );
      // The verdict's line for the run's log; the whole report when the verdict is not the one expected.
      console.log(
        `jevcompat: ${run.output.split('\n').find((l) => /conformant|not tested|incomplete/.test(l) && /MUST/.test(l)) ?? run.output}`,
      );
      expect(run.code, run.output).toBe(0);
      const { summary, results } = JSON.parse(fs.readFileSync(report, 'utf8'));
      expect(summary.verdict, run.output).toBe('conformant');
      expect(summary.untested_musts).toEqual([]);
      expect(summary.MUST.failed).toBe(0);
      expect(summary.SHOULD.failed).toBe(0);
      // Only what decide cannot produce goes unexercised: auth turned off (decide always
      // wants a key), and an unknown model refused (decide answers any model name).
      const skipped = results.filter((r: { status: string }) => r.status === 'skip').map((r: { id: string }) => r.id);
      expect(skipped.sort()).toEqual(['auth.ignored-when-off', 'errors.shape']);
      // The run's line, for the record: `conformant to spec 0.1: MUST 32/32, SHOULD 14/14`.
      expect(run.output).toMatch(/^conformant to spec 0\.1: MUST (\d+)\/\1, SHOULD (\d+)\/\2$/m);
    },
    scaled(400_000),
  );
});
