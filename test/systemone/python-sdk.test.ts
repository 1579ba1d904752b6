import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { questionText } from '../fakes/openai-fake.js';
import { openaiEnv, runJson, startServe, useServeFixture } from '../support/cli.js';
import { NEEDS_PYTHON_TOOLS, PYTHON_TOOLS } from '../support/python-tools.js';
import { scaled } from '../support/time.js';
import { listen } from '../../src/server/listen.js';
import { startingApp } from '../../src/server/starting.js';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sdk_check.py');

/**
 * The format's official Python SDK (typesafe-sdk from PyPI) against `decide serve`:
 * sdk_check.py calls it as its users do and reports what it parsed and what it raised.
 * The JS SDK has its own test (sdk.test.ts); jevcompat's drop-in check uses this SDK too.
 */
describe.skipIf(!PYTHON_TOOLS)(`the official Python SDK against decide serve ${NEEDS_PYTHON_TOOLS}`, () => {
  const fixture = useServeFixture();

  it(
    'parses every answer, lists the model, and raises its own errors with the server’s sentence',
    async () => {
      const { db } = fixture.tmp;
      const server = await startServe(
        ['--db', db],
        openaiEnv(fixture.fake.url, 'sk-engine-for-the-python-sdk', { DECIDE_MODEL: 'qwen-loopback' }),
      );
      const funded = await runJson<{ key: string; passId: string }>(['key', 'create', '--create', '--db', db]);
      await runJson(['pass', 'fund', '--pass', funded.passId, '--credits', '100', '--db', db]);
      const unfunded = await runJson<{ key: string }>(['key', 'create', '--create', '--db', db]);
      // Nothing of its mass on the labels: the engine cannot read this question.
      fixture.fake.respond((body) => (questionText(body).includes('unreadable') ? { labels: { The: 1 } } : {}));

      const run = await python([SCRIPT, server.url, funded.key, unfunded.key]);
      expect(run.code, run.stderr).toBe(0);
      const seen = JSON.parse(run.stdout);

      expect(seen.answer).toMatchObject({
        model: 'qwen-loopback',
        ids: ['topic', 'refund?', 'anger level'],
        // The options in the order the SDK sent them, integer-like names too.
        topic: { options: ['billing', '10', '2'], sum: expect.closeTo(1, 9) },
        anger: {
          levels: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
          legend: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [String(i), `level ${i}`])),
        },
        usage: [expect.any(Number), 0],
        request_id: expect.stringMatching(/^req_/),
      });
      expect(seen.answer.topic.options).toContain(seen.answer.topic.choice);
      expect(seen.answer.refund).toBeGreaterThan(0);
      expect(seen.options_255).toBe(255);
      expect(seen.models).toEqual(['qwen-loopback']);

      expect(seen.invalid).toMatchObject({ class: 'TypeSafeUnprocessableEntityError', status: 422 });
      expect(seen.invalid.message).toContain('questions.q.criteria: must hold 2 to 10 levels');
      expect(seen.unreadable).toMatchObject({ class: 'TypeSafeInternalServerError', status: 502 });
      expect(seen.unreadable.message).toMatch(/502 the decision engine's answer was unusable: question "b": /);
      expect(seen.unreadable.request_id).toMatch(/^req_/);
      expect(seen.bad_key).toMatchObject({ class: 'TypeSafeAuthenticationError', status: 401 });
      expect(seen.over_allowance).toMatchObject({ class: 'TypeSafeRateLimitError', status: 429 });
      expect(seen.over_allowance.message).toContain('21 questions cost 21 decisions');
      expect(seen.over_allowance.retry_after_ms).toBeGreaterThan(0);
      // Charged for what was answered (3 questions, then 1), nothing for what failed.
      const usage = async (key: string) => (await fetch(`${server.url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } })).json();
      expect(await usage(funded.key)).toMatchObject({ freeUsed: 4, passCredits: 100 });
      expect(await usage(unfunded.key)).toMatchObject({ freeUsed: 0 });
    },
    scaled(200_000),
  );

  it('while decide starts: the SDK raises on the 503 with the server’s sentence and its request id', async () => {
    const server = await listen(startingApp(), 0, '127.0.0.1');
    try {
      const run = await python(['-c', STARTING, server.url]);
      expect(run.code, run.stderr).toBe(0);
      const seen = JSON.parse(run.stdout);
      expect(seen.status).toBe(503);
      expect(seen.message).toContain('decide is starting');
      expect(seen.request_id).toMatch(/^req_[0-9a-f]{32}$/);
    } finally {
      await server.close();
    }
  });
});

/** One call of the SDK to a server still starting, and what it raised. */
const STARTING = `
import json, sys
from typesafe_sdk import Noul, RetryPolicy, TypeSafeClient
with TypeSafeClient(api_key="sk-any", base_url=sys.argv[1], retry=RetryPolicy(max_retries=0), timeout=60) as sdk:
    try:
        sdk.system_one(state="The invoice was paid twice.", questions={"refund": Noul(instructions="Refund?")}, model="jev-latest")
        print(json.dumps(None))
    except Exception as e:
        print(json.dumps({"class": type(e).__name__, "status": getattr(e, "status", None), "message": str(e), "request_id": getattr(e, "request_id", None)}))
`;

/** The tools' python, run with `args`: its exit code and what it printed. */
function python(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(PYTHON_TOOLS!.python, args, { timeout: scaled(120_000) }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    ),
  );
}
