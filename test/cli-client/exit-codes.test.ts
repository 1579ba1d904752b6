import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/contract/key.js';
import { assertBuilt } from '../support/cli.js';
import { closedPort } from '../support/ports.js';
import { CHOICE, NOUL } from '../support/requests.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { startStub, type Stub } from '../client/stub-api.js';
import { decide, killAll, tempFolder, type Run } from './helpers.js';

/**
 * Exit codes a CI step branches on, one test per class: 2 usage or invalid input,
 * 3 auth, 4 payment or limit, 5 engine or service. The key never shows in any output.
 */
describe('decide ask: exit codes for every error class', () => {
  let svc: Running;
  let stub: Stub;
  let tmp: ReturnType<typeof tempFolder>;
  beforeAll(async () => {
    assertBuilt();
    svc = await startWithOpenAI({ limits: { freePerKey: 1 } });
    stub = await startStub();
    tmp = tempFolder();
  });
  afterAll(async () => {
    tmp.remove();
    await stub.close();
    await svc.close();
  });
  beforeEach(() => {
    svc.fake.respond();
    stub.requests.length = 0;
  });
  afterEach(killAll);

  const noul = ['ask', NOUL.question, '--context', NOUL.context];
  const choice = ['ask', CHOICE.question, '--context', CHOICE.context, '--option', 'PostgreSQL', '--option', 'MongoDB'];

  /** Runs and checks the exit code, that stdout is empty and stderr says why after `decide:`, without the key. */
  async function fails(code: number, args: string[], env: Record<string, string>, key?: string): Promise<Run> {
    const run = await decide(args, { env });
    expect(run.code, run.stderr).toBe(code);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^decide: /);
    if (key) expect(run.stdout + run.stderr).not.toContain(key);
    return run;
  }

  describe('2: usage and invalid input, the field named, before any call', () => {
    const env = () => ({ DECIDE_URL: stub.url, DECIDE_API_KEY: generateKey() });
    const cases: Array<[message: string, args: string[]]> = [
      ["required option '--context", ['ask', NOUL.question]],
      ["missing required argument 'question'", ['ask', '--context', NOUL.context]],
      ["unknown option '--bogus'", [...noul, '--bogus']],
      ["argument 'maybe' is invalid", [...noul, '--mode', 'maybe']],
      ['--context (context): must be 20 to 2000 characters long (got 5)', ['ask', 'Too short', '--context', 'short']],
      ['<question> (question): must be 8 to 300 characters long (got 6)', ['ask', 'Short?', '--context', NOUL.context]],
      ['--option #2 (options.1): must be distinct', [...noul, '--option', 'A1', '--option', 'a1']],
      ['--option (options): must hold 2 to 6 options', [...noul, '--option', 'Only one']],
      ['--level (levels): must hold exactly 3 levels', [...noul, '--level', 'low', '--level', 'high']],
      ['give either --option (a choice) or --level (a score), not both', [...noul, '--option', 'ab', '--option', 'cd', '--level', 'x1']],
      ['--option (options): not allowed with mode noul', [...noul, '--mode', 'noul', '--option', 'ab', '--option', 'cd']],
      ['--mode choice needs its options', [...noul, '--mode', 'choice']],
      ['--fail-on applies to yes/no questions', [...choice, '--fail-on', 'no']],
      ['--context: cannot read the file /nonexistent/facts.txt (ENOENT)', ['ask', NOUL.question, '--context', '@/nonexistent/facts.txt']],
      ['--url must be an http(s) URL', [...noul, '--url', 'ftp://example.org']],
    ];
    it.each(cases)('%s', async (message, args) => {
      const run = await fails(2, args, env());
      expect(run.stderr).toContain(message);
      expect(stub.requests).toHaveLength(0);
    });

    it('several invalid fields: one line each, every field and its flag named', async () => {
      const run = await fails(2, ['ask', 'Short?', '--context', 'short', '--option', 'a', '--option', 'B'], env());
      expect(run.stderr).toBe(
        [
          'decide: invalid input:',
          '  <question> (question): must be 8 to 300 characters long (got 6)',
          '  --context (context): must be 20 to 2000 characters long (got 5)',
          '  --option #1 (options.0): must be 2 to 100 characters long (got 1)',
          '  --option #2 (options.1): must be 2 to 100 characters long (got 1)',
          '',
        ].join('\n'),
      );
      expect(stub.requests).toHaveLength(0);
    });

    it('a 400 of the service (the server is the judge too) is 2, its message passed on', async () => {
      stub.script({ status: 400, body: { error: 'context: must not be empty', code: 'invalid_request' } });
      const run = await fails(2, noul, env());
      expect(run.stderr).toBe('decide: context: must not be empty (400 invalid_request)\n');
    });
  });

  describe('3: auth', () => {
    it('no key at all: 3, saying how to give one, no request made', async () => {
      const run = await fails(3, noul, { DECIDE_URL: stub.url });
      expect(run.stderr).toContain('no API key: set DECIDE_API_KEY, or pass --key-file PATH');
      // Where to get one: the service's own page in a browser, or the operator's command.
      expect(run.stderr).toContain(
        `Get a key in a browser at ${stub.url}/ (the service's home page), or from its operator (\`decide key create\`).`,
      );
      expect(stub.requests).toHaveLength(0);
    });

    it('a mistyped key (checksum fails): 3 without a round trip, the key not echoed', async () => {
      const key = generateKey();
      const typo = key.slice(0, 20) + (key[20] === 'a' ? 'b' : 'a') + key.slice(21);
      const run = await fails(3, noul, { DECIDE_URL: stub.url, DECIDE_API_KEY: typo }, typo);
      expect(run.stderr).toContain('DECIDE_API_KEY does not hold a well-formed decide key');
      expect(stub.requests).toHaveLength(0);
    });

    it('--key-file: a missing file, an empty one, a malformed one are 3 and name the file', async () => {
      const missing = await fails(3, [...noul, '--key-file', '/nonexistent/key'], { DECIDE_URL: stub.url });
      expect(missing.stderr).toContain('cannot read the key file /nonexistent/key');
      const empty = tmp.write('empty.key', '\n');
      expect((await fails(3, [...noul, '--key-file', empty], { DECIDE_URL: stub.url })).stderr).toContain(`the key file ${empty} is empty`);
      const bad = tmp.write('bad.key', 'sk-not-a-decide-key\n');
      expect((await fails(3, [...noul, '--key-file', bad], { DECIDE_URL: stub.url })).stderr).toContain(
        `the key file ${bad} does not hold`,
      );
    });

    it('a well-formed key the service does not know, and a revoked one: 401 → 3', async () => {
      const stranger = generateKey();
      const run = await fails(3, noul, { DECIDE_URL: svc.url, DECIDE_API_KEY: stranger }, stranger);
      expect(run.stderr).toContain('the service refused the key from DECIDE_API_KEY (401 unauthorized)');

      const { key } = await svc.newKey();
      await svc.call('DELETE', '/v1/key', { key });
      const file = tmp.write('revoked.key', `${key}\n`);
      const revoked = await fails(3, [...noul, '--key-file', file], { DECIDE_URL: svc.url }, key);
      expect(revoked.stderr).toContain(`the service refused the key from the key file ${file}`);
    });
  });

  describe('4: payment or limit', () => {
    it('402 pass_required: stress without credits', async () => {
      const { key } = await svc.newKey();
      const run = await fails(4, ['stress', ...noul.slice(1)], { DECIDE_URL: svc.url, DECIDE_API_KEY: key }, key);
      expect(run.stderr).toContain('(402 pass_required)');
    });

    it('429 free_limit_reached: the free allowance used up, with when to come back', async () => {
      const { key } = await svc.newKey();
      const env = { DECIDE_URL: svc.url, DECIDE_API_KEY: key };
      expect((await decide([...noul, '--json'], { env })).code).toBe(0);
      const run = await fails(4, noul, env, key);
      expect(run.stderr).toMatch(/\(429 free_limit_reached\); try again in (\d+ s|\d+ min|\d+ h \d+ min)\n$/);
    });

    it('402 insufficient_credits and 429 rate_limited', async () => {
      stub.script({ status: 402, body: { error: 'the pass holds 2 credits; this decision costs 5', code: 'insufficient_credits' } });
      await fails(4, noul, { DECIDE_URL: stub.url, DECIDE_API_KEY: generateKey() });
      stub.script({ status: 429, body: { error: 'site limit', code: 'rate_limited' }, headers: { 'retry-after': '3600' } });
      const run = await fails(4, noul, { DECIDE_URL: stub.url, DECIDE_API_KEY: generateKey() });
      expect(run.stderr).toContain('(429 rate_limited); try again in 1 h 0 min');
    });
  });

  describe('5: engine or service failure', () => {
    it('the engine answers garbage: 502 engine_bad_response → 5', async () => {
      const { key } = await svc.newKey();
      svc.fake.respond(() => ({ garbage: true }));
      const run = await fails(5, noul, { DECIDE_URL: svc.url, DECIDE_API_KEY: key }, key);
      // In plain words, as the pass page says it; the engine's own wording is for the operator's log.
      expect(run.stderr).toMatch(
        /^decide: The model gave an answer that could not be read\. Nothing was charged; try again\. \(502 engine_bad_response\); request id \S+\n$/,
      );
    });

    it('the engine stays unavailable: 503 retried twice (notices on stderr), then 5; nothing charged', async () => {
      const { key } = await svc.newKey();
      svc.fake.respond(() => ({ status: 500, headers: { 'retry-after': '1' } }));
      const run = await fails(5, noul, { DECIDE_URL: svc.url, DECIDE_API_KEY: key }, key);
      const lines = run.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(/engine_unavailable\); retrying in 1 s \(attempt 2 of 3\)$/);
      expect(lines[1]).toMatch(/retrying in 1 s \(attempt 3 of 3\)$/);
      expect(lines[2]).toMatch(/\(503 engine_unavailable\); request id [A-Za-z0-9_=-]{8,128}$/);
      expect((await svc.call('GET', '/v1/usage', { key })).body.freeUsed).toBe(0);
    });

    it('the engine is busy for longer than the client waits: 429 engine_busy → 5 at once', async () => {
      stub.script({ status: 429, body: { error: 'the decision engine is busy', code: 'engine_busy' }, headers: { 'retry-after': '60' } });
      const run = await fails(5, noul, { DECIDE_URL: stub.url, DECIDE_API_KEY: generateKey() });
      expect(run.stderr).toBe(
        'decide: The model is busy with other decisions. Nothing was charged; try again in 60 s. (429 engine_busy)\n',
      );
      expect(stub.requests).toHaveLength(1);
    });

    it('the engine did not answer in time: 504 engine_timeout → 5, said in plain words, not retried', async () => {
      stub.script({
        status: 504,
        body: { error: 'the decision engine did not answer in time: no answer within 30000 ms', code: 'engine_timeout' },
      });
      const run = await fails(5, noul, { DECIDE_URL: stub.url, DECIDE_API_KEY: generateKey() });
      expect(run.stderr).toBe('decide: The model did not answer in time. Nothing was charged; try again. (504 engine_timeout)\n');
      expect(stub.requests).toHaveLength(1);
    });

    it('unreachable server: 5, the message names the URL and DECIDE_URL', async () => {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const run = await fails(5, noul, { DECIDE_URL: url, DECIDE_API_KEY: generateKey() });
      expect(run.stderr).toContain(`cannot reach the decide service (POST ${url}/v1/decisions): ECONNREFUSED`);
      expect(run.stderr).toContain('Set DECIDE_URL (or --url)');
    });

    it('something else on that URL (HTML, 404): 5, asking whether it is a decide service', async () => {
      stub.script({ status: 404, text: '<html>Not here</html>' });
      const run = await fails(5, [...noul, '--url', stub.url], { DECIDE_API_KEY: generateKey() });
      expect(run.stderr).toContain(`Is ${stub.url} a decide service?`);
    });

    it("a failure of the service's own names the request id it answered with, for the operator's log", async () => {
      // Retry-After beyond what the client waits, so the first answer is the last.
      stub.script({
        status: 503,
        body: { error: 'maintenance', code: 'engine_unavailable', requestId: 'req-in-body' },
        headers: { 'retry-after': '60' },
      });
      const fromBody = await fails(5, [...noul, '--url', stub.url], { DECIDE_API_KEY: generateKey() });
      expect(fromBody.stderr).toContain(
        'The model cannot be reached just now. Nothing was charged; try again in 60 s. (503 engine_unavailable); request id req-in-body',
      );
      stub.script({
        status: 500,
        body: { error: 'broken', code: 'internal_error' },
        headers: { 'x-request-id': 'req-in-header', 'retry-after': '60' },
      });
      const fromHeader = await fails(5, [...noul, '--url', stub.url], { DECIDE_API_KEY: generateKey() });
      expect(fromHeader.stderr).toContain('broken (500 internal_error); request id req-in-header');
      // The caller's own mistakes are theirs to fix: no id to look up.
      stub.script({ status: 400, body: { error: 'question is required', code: 'invalid_request', requestId: 'req-400' } });
      const own = await fails(2, [...noul, '--url', stub.url], { DECIDE_API_KEY: generateKey() });
      expect(own.stderr).not.toContain('request id');
    });

    it('--url wins over DECIDE_URL', async () => {
      stub.script({ status: 503, body: { error: 'maintenance', code: 'engine_unavailable' }, headers: { 'retry-after': '60' } });
      await fails(5, [...noul, '--url', stub.url], { DECIDE_URL: 'http://127.0.0.1:1', DECIDE_API_KEY: generateKey() });
      expect(stub.requests).toHaveLength(1);
    });
  });

  it('usage errors of the operator commands still exit 64; unknown commands too', async () => {
    const fund = await decide(['pass', 'fund', '--pass', 'pass_x']);
    expect(fund.code).toBe(64);
    expect((await decide(['nonsense'])).code).toBe(64);
    expect((await decide(['ask', '--help'])).code).toBe(0);
  });

  it('decide --help documents both sets of exit codes', async () => {
    const help = await decide(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes of ask, stress, usage and revoke:');
    expect(help.stdout).toMatch(/ 3 {2}no key, a malformed key, or the key was refused \(401\)/);
    expect(help.stdout).toContain('Exit codes of serve, mcp and the operator commands (key, pass, backup):');
    expect(help.stdout).toMatch(/ 64 {2}bad flags or arguments/);
    expect(help.stdout).toMatch(/ 65 {2}the database file is not a SQLite database, or is damaged/);
    expect(help.stdout).toMatch(
      / 66 {2}serve: the model file is missing or cannot be loaded; key, pass, backup:\s+no ledger where --db points \(without --create\), no such pass or key/,
    );
    expect(help.stdout).toMatch(/ 69 {2}port taken; database locked by another process, PostgreSQL unreachable/);
    expect(help.stdout).toMatch(/ 74 {2}the database file cannot be opened/);
  });

  it('every --help fits 80 columns, the exit codes wrapped under their descriptions', async () => {
    const commands = [[], ['ask'], ['stress'], ['usage'], ['revoke'], ['serve'], ['eval'], ['calibrate']];
    const helps = await Promise.all(commands.map((command) => decide([...command, '--help'])));
    helps.forEach((help, i) => {
      expect(help.code).toBe(0);
      for (const line of help.stdout.split('\n'))
        expect([...line].length, `decide ${commands[i].join(' ')} --help: ${line}`).toBeLessThanOrEqual(80);
    });
    const ask = helps[1].stdout;
    expect(ask).toMatch(
      /\n {4}2 {2}usage error or invalid input, the message names the field \(400, 413, 415,\n {7}422\); revoke not confirmed\n/,
    );
  });
});
