import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/contract/key.js';
import { assertBuilt } from '../support/cli.js';
import { closedPort } from '../support/ports.js';
import { NOUL } from '../support/requests.js';
import { startStub, type Stub } from '../client/stub-api.js';
import { decide, killAll, tempFolder } from './helpers.js';

/**
 * Under `--json` a failure is one JSON object on stdout, the fields a script branches
 * on beside the sentence, so no script has to parse prose; the exit code is the one
 * the same failure has without `--json`, and stderr still says why for a person.
 */
describe('--json failures: one JSON object on stdout', () => {
  let stub: Stub;
  let tmp: ReturnType<typeof tempFolder>;
  beforeAll(async () => {
    assertBuilt();
    stub = await startStub();
    tmp = tempFolder();
  });
  afterAll(async () => {
    tmp.remove();
    await stub.close();
  });
  beforeEach(() => void (stub.requests.length = 0));
  afterEach(killAll);

  const ask = ['ask', NOUL.question, '--context', NOUL.context];
  const env = (url = stub.url) => ({ DECIDE_URL: url, DECIDE_API_KEY: generateKey() });
  const rateLimited = () =>
    stub.script({
      status: 429,
      body: { error: 'site limit', code: 'rate_limited', requestId: 'req-429' },
      headers: { 'retry-after': '3600' },
    });

  /**
   * Runs `args` with `--json` (after `prepare` scripts the stub), then without it (after
   * `prepare` again): the exit codes are the same, the first printed exactly one JSON
   * object on one line, which is returned, and a sentence on stderr.
   */
  async function failsInJson(args: string[], environment: Record<string, string>, prepare = () => {}): Promise<Record<string, unknown>> {
    prepare();
    const json = await decide([...args, '--json'], { env: environment });
    prepare();
    const prose = await decide(args, { env: environment });
    expect(prose.code).not.toBe(0);
    expect(json.code, json.stderr).toBe(prose.code);
    expect(prose.stdout).toBe('');
    expect(json.stdout.endsWith('\n')).toBe(true);
    expect(json.stdout.trimEnd().split('\n')).toHaveLength(1);
    const failure = JSON.parse(json.stdout);
    expect(failure).toBeTypeOf('object');
    // The same sentence a person reads on stderr.
    expect(json.stderr).toBe(prose.stderr);
    expect(json.stderr).toBe(`decide: ${failure.error}\n`);
    return failure;
  }

  it("a service error: the service's code and status, its Retry-After and request id", async () => {
    const failure = await failsInJson(ask, env(), rateLimited);
    expect(failure).toEqual({
      error: 'site limit (429 rate_limited); try again in 1 h 0 min',
      code: 'rate_limited',
      status: 429,
      retryAfter: 3600,
      requestId: 'req-429',
    });
  });

  it('stress, usage and revoke --yes fail the same way', async () => {
    for (const args of [['stress', ...ask.slice(1)], ['usage'], ['revoke', '--yes']]) {
      const failure = await failsInJson(args, env(), rateLimited);
      expect(failure, args[0]).toMatchObject({ code: 'rate_limited', status: 429, retryAfter: 3600 });
    }
  });

  it('an error of the service without Retry-After or id: only the fields known', async () => {
    const invalid = () => stub.script({ status: 400, body: { error: 'context: must not be empty', code: 'invalid_request' } });
    expect(await failsInJson(ask, env(), invalid)).toEqual({
      error: 'context: must not be empty (400 invalid_request)',
      code: 'invalid_request',
      status: 400,
    });
  });

  it('the service cannot be reached: code unreachable, status 0, exit 5', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const failure = await failsInJson(ask, env(url));
    expect(failure).toMatchObject({ code: 'unreachable', status: 0 });
    expect(failure.error).toContain(`cannot reach the decide service (POST ${url}/v1/decisions)`);
    expect((await decide([...ask, '--json'], { env: env(url) })).code).toBe(5);
  });

  it("bad flags, commander's and decide's own: code usage, exit 2, nothing sent", async () => {
    const unknown = await failsInJson([...ask, '--bogus'], env());
    expect(unknown).toEqual({ error: "unknown option '--bogus'", code: 'usage' });
    // --json after the bad value: commander stops at the value, and --json still counts.
    expect(await failsInJson([...ask, '--mode', 'maybe'], env())).toMatchObject({ code: 'usage' });
    expect(await failsInJson([...ask, '--mode', 'choice'], env())).toEqual({
      error: '--mode choice needs its options: 2 to 6 --option flags',
      code: 'usage',
    });
    expect(await failsInJson(['revoke'], env())).toMatchObject({ code: 'usage' });
    expect((await decide([...ask, '--bogus', '--json'], { env: env() })).code).toBe(2);
    expect(stub.requests).toHaveLength(0);
  });

  it('no key: code auth, exit 3', async () => {
    const failure = await failsInJson(ask, { DECIDE_URL: stub.url });
    expect(failure).toMatchObject({ code: 'auth' });
    expect(failure.error).toContain('no API key');
    expect((await decide([...ask, '--json'], { env: { DECIDE_URL: stub.url } })).code).toBe(3);
  });

  it('an operator command too: no ledger there is not_found, exit 66', async () => {
    const failure = await failsInJson(['pass', 'show', '--pass', 'pass_x', '--db', `${tmp.dir}/none.db`], {});
    expect(failure).toMatchObject({ code: 'not_found' });
    expect((await decide(['pass', 'list', '--db', `${tmp.dir}/none.db`, '--json'])).code).toBe(66);
  });
});
