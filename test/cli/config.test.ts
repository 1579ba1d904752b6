import net from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, killChildren, openaiEnv, runCli, tempDb } from '../support/cli.js';

/** `decide serve` refuses to start, with sysexits codes a supervisor can branch on. */
describe('decide serve: configuration and port errors', () => {
  const cleanups: Array<() => void | Promise<void>> = [];
  beforeAll(assertBuilt);
  afterEach(async () => {
    await killChildren();
    for (const clean of cleanups.splice(0)) await clean();
  });
  const db = () => {
    const tmp = tempDb();
    cleanups.push(tmp.remove);
    return tmp.db;
  };

  it('DECIDE_ENGINE=nope: exit 78, the message names the variable and the bad value', async () => {
    const result = await runCli(['serve', '--port', '0', '--db', db()], { DECIDE_ENGINE: 'nope' });
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('DECIDE_ENGINE must be one of systemone, openai, anthropic or local');
    expect(result.stderr).toContain('"nope"');
    expect(result.stdout).toBe('');
  });

  it('openai engine without DECIDE_MODEL: exit 78 naming DECIDE_MODEL', async () => {
    const env = openaiEnv('http://127.0.0.1:9/v1', 'sk-x');
    delete (env as Record<string, string | undefined>).DECIDE_MODEL;
    const result = await runCli(['serve', '--port', '0', '--db', db()], env);
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('DECIDE_MODEL is required');
  });

  it('a bad DECIDE_ENGINE_TIMEOUT_MS: exit 78 naming it', async () => {
    const env = openaiEnv('http://127.0.0.1:9/v1', 'sk-x', { DECIDE_ENGINE_TIMEOUT_MS: 'soon' });
    const result = await runCli(['serve', '--port', '0', '--db', db()], env);
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('DECIDE_ENGINE_TIMEOUT_MS');
  });

  it('port already taken: exit 69 and a message saying the port is in use', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const port = (blocker.address() as net.AddressInfo).port;

    const result = await runCli(
      ['serve', '--port', String(port), '--host', '127.0.0.1', '--db', db()],
      openaiEnv('http://127.0.0.1:9/v1', 'sk-x'),
    );
    expect(result.code).toBe(69);
    expect(result.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(result.stdout).not.toContain('listening');
  });

  it('a --port that is not a number is a usage error (64) naming the flag', async () => {
    const result = await runCli(['serve', '--port', 'http', '--db', db()], openaiEnv('http://127.0.0.1:9/v1', 'sk-x'));
    expect(result.code).toBe(64);
    expect(result.stderr).toBe('decide: --port must be a port number from 0 to 65535, in digits only; got "http"\n');
  });

  it('a DECIDE_PORT the same schema refuses is a configuration error (78) naming the variable; the flag wins over it', async () => {
    const env = openaiEnv('http://127.0.0.1:9/v1', 'sk-x', { DECIDE_PORT: '70000' });
    const result = await runCli(['serve', '--db', db()], env);
    expect(result.code).toBe(78);
    expect(result.stderr).toBe('decide: DECIDE_PORT must be a port number from 0 to 65535, in digits only; got "70000"\n');
    // Given, the flag is the value: the variable is not read at all.
    const flagged = await runCli(['serve', '--port', '1e3', '--db', db()], env);
    expect(flagged.code).toBe(64);
    expect(flagged.stderr).toContain('--port must be');
  });

  it('a DECIDE_TRUST_PROXY or DECIDE_IPV6_PREFIX it cannot read is a configuration error (78) naming it, before anything starts', async () => {
    for (const [name, value, said] of [
      [
        'DECIDE_TRUST_PROXY',
        'yes',
        'decide: DECIDE_TRUST_PROXY: "yes" is neither an IP address nor a CIDR (e.g. 10.0.0.0/8, fd00::/8); give a hop count or a comma-separated list\n',
      ],
      ['DECIDE_IPV6_PREFIX', '7', 'decide: DECIDE_IPV6_PREFIX must be a prefix length from 16 to 128 bits; got "7"\n'],
    ]) {
      const result = await runCli(['serve', '--port', '0', '--db', db()], openaiEnv('http://127.0.0.1:9/v1', 'sk-x', { [name]: value }));
      expect(result.code, name).toBe(78);
      expect(result.stderr).toBe(said);
    }
  });
});
