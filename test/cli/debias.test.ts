import { describe, expect, it } from 'vitest';
import { call } from '../support/api.js';
import { openaiEnv, runCli, runJson, startServe, useServeFixture } from '../support/cli.js';
import { CHOICE } from '../support/requests.js';

/** `decide serve --debias`: how many readings a decision asks the engine for, as the operator set it. */
describe('decide serve: order debiasing', () => {
  const serve = useServeFixture();

  const decideOnce = async (args: string[], extra: Record<string, string> = {}) => {
    const { fake, tmp } = serve;
    fake.requests.length = 0;
    const { key } = await runJson(['key', 'create', '--create', '--db', tmp.db]);
    const serving = await startServe(['--db', tmp.db, ...args], openaiEnv(fake.url, 'sk-debias', extra));
    const line = await serving.waitForStderr(/^decide: engine /);
    const res = await call(serving.url, 'POST', '/v1/decisions', { key, json: CHOICE });
    expect(res.status).toBe(200);
    await serving.stop();
    return { line, calls: fake.requests.length };
  };

  it('a remote engine reads once unless asked; --debias reverse asks both orders of the question and of the probe', async () => {
    // The openai engine makes one call per question: the main question and the sufficiency probe.
    const plain = await decideOnce([]);
    expect(plain.line).toContain('(model m, debias none, calibration none)');
    expect(plain.calls).toBe(2);
    const reversed = await decideOnce(['--debias', 'reverse']);
    expect(reversed.line).toContain('debias reverse');
    expect(reversed.calls).toBe(4);
  });

  it('DECIDE_DEBIAS=cyclic asks a two-option choice in its two orders; a bad value exits 78 naming it, a bad --debias 64', async () => {
    const cyclic = await decideOnce([], { DECIDE_DEBIAS: 'cyclic' });
    expect(cyclic.line).toContain('debias cyclic');
    expect(cyclic.calls).toBe(4);
    const bad = await runCli(
      ['serve', '--port', '0', '--db', serve.tmp.db],
      openaiEnv(serve.fake.url, 'sk-debias', { DECIDE_DEBIAS: 'sideways' }),
    );
    expect(bad.code).toBe(78);
    expect(bad.stderr).toBe('decide: DECIDE_DEBIAS must be none, reverse or cyclic; got "sideways"\n');
    const flag = await runCli(
      ['serve', '--port', '0', '--db', serve.tmp.db, '--debias', 'sideways'],
      openaiEnv(serve.fake.url, 'sk-debias'),
    );
    expect(flag.code).toBe(64);
    expect(flag.stderr).toBe('decide: --debias must be none, reverse or cyclic; got "sideways"\n');
  });
});
