import { afterEach, describe, expect, it } from 'vitest';
import { expiryMargin } from '../../src/config/config.js';
import { call } from '../support/api.js';
import { openaiEnv, runCli, runJson, startServe, useServeFixture } from '../support/cli.js';
import { NOUL } from '../support/requests.js';
import { MICROS, PgLedger } from '../ledger/postgres-helpers.js';
import { eventually, gate, scaled } from '../support/time.js';
import { NEEDS_POSTGRES, POSTGRES } from '../support/postgres.js';

/**
 * DECIDE_EXPIRY_MARGIN_MS: how long past the decision deadline a PostgreSQL reservation
 * outlives a server that died (a chaos run makes it short).
 */
describe('DECIDE_EXPIRY_MARGIN_MS', () => {
  it('reads whole milliseconds, 0 and up; blank or unset is 60000', () => {
    expect(expiryMargin({})).toBe(60_000);
    expect(expiryMargin({ DECIDE_EXPIRY_MARGIN_MS: '  ' })).toBe(60_000);
    expect(expiryMargin({ DECIDE_EXPIRY_MARGIN_MS: '0' })).toBe(0);
    expect(expiryMargin({ DECIDE_EXPIRY_MARGIN_MS: ' 1500 ' })).toBe(1_500);
    for (const bad of ['soon', '-1', '1.5', '1e3', '0x10', '99999999999']) {
      expect(() => expiryMargin({ DECIDE_EXPIRY_MARGIN_MS: bad })).toThrow(
        `DECIDE_EXPIRY_MARGIN_MS must be a whole number of milliseconds, 0 or more; got "${bad}"`,
      );
    }
  });

  describe('decide serve', () => {
    const fixture = useServeFixture();
    const ledgers: PgLedger[] = [];
    afterEach(async () => {
      for (const ledger of ledgers.splice(0)) await ledger.dispose();
    });

    it('a bad value: exit 78, the message names the variable, nothing listens', async () => {
      const env = openaiEnv(fixture.fake.url, 'sk-x', { DECIDE_EXPIRY_MARGIN_MS: 'a minute' });
      const result = await runCli(['serve', '--port', '0', '--db', fixture.tmp.db], env);
      expect(result.code).toBe(78);
      expect(result.stderr).toBe('decide: DECIDE_EXPIRY_MARGIN_MS must be a whole number of milliseconds, 0 or more; got "a minute"\n');
      expect(result.stdout).toBe('');
    });

    it.skipIf(!POSTGRES)(
      `on PostgreSQL, a reservation taken by the server expires at the deadline plus this margin ${NEEDS_POSTGRES}`,
      async () => {
        const ledger = new PgLedger();
        ledgers.push(ledger);
        // The decision stays at the engine while its reservation is read.
        const engine = gate();
        fixture.fake.respond(() => ({ until: engine.promise }));
        const env = openaiEnv(fixture.fake.url, 'sk-x', { DECIDE_ENGINE_TIMEOUT_MS: '5000', DECIDE_EXPIRY_MARGIN_MS: '123000' });
        const server = await startServe(['--db', ledger.url], env, scaled(20_000));
        const { key } = await runJson(['key', 'create', '--create', '--db', ledger.url]);
        let lease: { start: number }[] = [];
        try {
          // The lease starts when the database inserts the reservation: between these two readings of its clock.
          const before = await ledger.clockMicros();
          const pending = call(server.url, 'POST', '/v1/decisions', { key, json: NOUL });
          pending.catch(() => {}); // awaited below; should a check fail first, the server's end is no unhandled rejection
          await eventually(async () => {
            // Deadline + margin = 128 s (not the margin alone, nor the default 60 s margin).
            lease = await ledger.rows<{ start: number }>(
              `SELECT ${MICROS("expires_at - interval '128 seconds'")} AS start FROM charges WHERE state = 'reserved'`,
            );
            return lease.length > 0;
          }, 'the reservation of the decision');
          const after = await ledger.clockMicros();
          expect(lease).toHaveLength(1);
          expect(lease[0].start).toBeGreaterThanOrEqual(before);
          expect(lease[0].start).toBeLessThanOrEqual(after);
          engine.open();
          expect((await pending).status).toBe(200);
        } finally {
          engine.open();
        }
        expect(await server.stop()).toEqual({ code: 0, signal: null });
      },
    );
  });
});
