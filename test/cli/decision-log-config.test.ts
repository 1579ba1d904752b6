import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config/config.js';
import { openaiEnv, runCli, startServe, useServeFixture } from '../support/cli.js';
import { scaled } from '../support/time.js';

/** DECIDE_DECISION_LOG and DECIDE_DECISION_LOG_RETENTION_DAYS, as `decide serve` reads them. */
describe('the decision log settings', () => {
  const env = (extra: Record<string, string>) => ({ OPENAI_BASE_URL: 'http://127.0.0.1:9', DECIDE_MODEL: 'm', ...extra });
  const logOf = (extra: Record<string, string>) => readConfig(env(extra)).ledger.decisionLog;

  it('off and 30 days unless set; a level in any case; whole days from 1', () => {
    expect(logOf({})).toEqual({ level: 'off', retentionDays: 30 });
    expect(logOf({ DECIDE_DECISION_LOG: 'Full', DECIDE_DECISION_LOG_RETENTION_DAYS: ' 7 ' })).toEqual({ level: 'full', retentionDays: 7 });
    expect(logOf({ DECIDE_DECISION_LOG: 'metadata', DECIDE_DECISION_LOG_RETENTION_DAYS: '1' }).retentionDays).toBe(1);
  });

  it('a bad value is an error naming the variable', () => {
    expect(() => logOf({ DECIDE_DECISION_LOG: 'on' })).toThrow('DECIDE_DECISION_LOG must be off, metadata or full; got "on"');
    for (const bad of ['0', '-3', '1.5', 'a month', '1e2', '99999']) {
      expect(() => logOf({ DECIDE_DECISION_LOG_RETENTION_DAYS: bad })).toThrow(
        `DECIDE_DECISION_LOG_RETENTION_DAYS must be a positive whole number of days (1 to 36500), in digits only; got "${bad}"`,
      );
    }
  });

  describe('decide serve', () => {
    const fixture = useServeFixture();

    it('a bad retention: exit 78, the message names the variable, nothing listens', async () => {
      const bad = openaiEnv(fixture.fake.url, 'sk-x', { DECIDE_DECISION_LOG: 'full', DECIDE_DECISION_LOG_RETENTION_DAYS: '0' });
      const result = await runCli(['serve', '--port', '0', '--db', fixture.tmp.db], bad);
      expect(result.code).toBe(78);
      expect(result.stderr).toBe(
        'decide: DECIDE_DECISION_LOG_RETENTION_DAYS must be a positive whole number of days (1 to 36500), in digits only; got "0"\n',
      );
      expect(result.stdout).toBe('');
    });

    it('the start line says what the log keeps, and for how long', async () => {
      const on = openaiEnv(fixture.fake.url, 'sk-x', { DECIDE_DECISION_LOG: 'metadata', DECIDE_DECISION_LOG_RETENTION_DAYS: '7' });
      const server = await startServe(['--db', fixture.tmp.db], on, scaled(20_000));
      expect(await server.waitForStderr(/engine openai/)).toContain(', decision log metadata, kept 7 days');
    });
  });
});
