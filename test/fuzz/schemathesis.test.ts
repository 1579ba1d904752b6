import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { audit } from '../ledger/helpers.js';
import { PgLedger } from '../ledger/postgres-helpers.js';
import { call } from '../support/api.js';
import { startSystemOneFake, type SystemOneFake } from '../fakes/systemone-fake.js';
import { runJson, startServe, useServeFixture } from '../support/cli.js';
import { NEEDS_POSTGRES, POSTGRES } from '../support/postgres.js';
import { NEEDS_SCHEMATHESIS, SCHEMATHESIS } from '../support/python-tools.js';
import { scaled } from '../support/time.js';

/**
 * A fuzzer nobody here wrote: Schemathesis (PyPI; `npm run tools:python`) reads
 * `/openapi.json` of a running `decide serve` and sends what the document allows and
 * what it does not, on every route, then chains them where the document's responses
 * feed other requests (its stateful phase). Every answer is checked: never a 5xx,
 * status, content type, headers and body as the document says. Then the ledger's books
 * must be exact: every charge settled once, every pass's credits what its charges say.
 *
 * It runs on each ledger: SQLite, and PostgreSQL with the decision log at `full` and at
 * `metadata` (where text PostgreSQL cannot hold, a NUL, once made 500s after the engine
 * had answered, and served those decisions free).
 *
 * Excluded, and why:
 * - `DELETE /v1/key` revokes the key the run authenticates with, which would leave
 *   every later request a 401 (revocation has tests of its own). The operator's
 *   `DELETE /v1/admin/keys/{ref}` stays in: a generated ref names no key, and one taken
 *   from a key the run created revokes that key only.
 * - the check that a schema-valid request is accepted (`positive_data_acceptance`):
 *   the contract has rules JSON Schema cannot state (options distinct once trimmed, in
 *   NFC and case-insensitively; text lengths counted after that cleaning; a 64 KiB
 *   body), and a request breaking one is refused with 400/422 naming the field, as it
 *   should be.
 */
const LEDGERS = [
  { ledger: 'SQLite', log: 'off' },
  { ledger: 'PostgreSQL', log: 'full' },
  { ledger: 'PostgreSQL', log: 'metadata' },
] as const;

describe.skipIf(!SCHEMATHESIS)(`Schemathesis against decide serve ${NEEDS_SCHEMATHESIS}`, () => {
  const fixture = useServeFixture();
  let engine: SystemOneFake | undefined;
  let pg: PgLedger | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await pg?.dispose();
    pg = undefined;
  });

  for (const { ledger, log } of LEDGERS) {
    const onPostgres = ledger === 'PostgreSQL';
    it.skipIf(onPostgres && !POSTGRES)(
      `on ${ledger}, decision log ${log}: finds no 5xx and no answer unlike the document on any route, and leaves the books exact${onPostgres ? ` ${NEEDS_POSTGRES}` : ''}`,
      async () => {
        const { dir } = fixture.tmp;
        if (onPostgres) pg = new PgLedger();
        const db = pg?.url ?? fixture.tmp.db;
        // An engine whose every answer is valid whatever it is asked (a System One server
        // on loopback), so any 5xx is decide's own: the OpenAI fake reads labels out of
        // the prompt, and prompts made of control characters defeat it.
        engine = await startSystemOneFake();
        // The operator API on, so its routes are fuzzed behind their own token like the rest.
        const adminToken = 'fuzz-admin-token-0123456789abcdef';
        const server = await startServe(['--db', db], {
          DECIDE_SYSTEMONE_URL: engine.url,
          DECIDE_MODEL: 'fuzzed',
          DECIDE_ADMIN_TOKEN: adminToken,
          DECIDE_DECISION_LOG: log,
        });
        const { key, passId } = await runJson<{ key: string; passId: string }>(['key', 'create', '--db', db]);
        await runJson(['pass', 'fund', '--pass', passId, '--credits', '100000', '--db', db]);
        // A browser's pass, so the pages' cookie routes are reached too, from the server's own Origin.
        const pass = await call(server.url, 'POST', '/v1/pass', { headers: { origin: server.url } });
        expect(pass.status).toBe(201);
        const cookie = pass.headers['set-cookie']!.split(';')[0]!;

        const junit = path.join(dir, 'schemathesis.xml');
        // Credentials by the document's own security schemes, so requests sent without them are judged as such.
        const config = path.join(dir, 'schemathesis.toml');
        fs.writeFileSync(
          config,
          [
            `headers = { Origin = "${server.url}" }`,
            '[auth.openapi.bearer]',
            `bearer = "${key}"`,
            '[auth.openapi.adminToken]',
            `bearer = "${adminToken}"`,
            '[auth.openapi.passCookie]',
            `api_key = "${cookie.slice(cookie.indexOf('=') + 1)}"`,
            // A body past 64 KiB is refused with 413 before it is read: a rejection like any other.
            '[checks.negative_data_rejection]',
            'expected-statuses = [400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 428, 429]',
            '',
          ].join('\n'),
        );
        const args = [
          '--config-file',
          config,
          'run',
          `${server.url}/openapi.json`,
          '--checks',
          'all',
          '--exclude-checks',
          'positive_data_acceptance',
          '--exclude-operation-id',
          'revokeKey',
          '--phases',
          'examples,coverage,fuzzing,stateful',
          '--max-examples',
          '150',
          '--workers',
          '1',
          '--seed',
          '20261125',
          '--report',
          'junit',
          '--report-junit-path',
          junit,
        ];
        const run = await new Promise<{ code: number; output: string }>((resolve) =>
          execFile(
            SCHEMATHESIS!,
            args,
            // In the test's folder: the tool keeps its cache (.schemathesis, .hypothesis) where it runs.
            {
              cwd: dir,
              env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_HOOKS: '' },
              timeout: scaled(300_000),
              maxBuffer: 32 * 1024 * 1024,
            },
            (error, stdout, stderr) =>
              resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, output: stdout + stderr }),
          ),
        );
        // The summary for the run's log; the whole report when it failed.
        console.log(
          `schemathesis: ${run.output
            .split('\n')
            .filter((l) => /generated|Stateful|Fuzzing|Coverage|Examples|=====.* in /.test(l))
            .join(' | ')}`,
        );
        expect(run.code, run.output).toBe(0);
        expect(fs.existsSync(junit)).toBe(true);
        expect(run.output).toMatch(/\d+ generated/);

        // The server agrees: no 5xx in its access log, no stack on stderr.
        const statuses = server.stdout.flatMap((line) => {
          try {
            return [JSON.parse(line).status as number];
          } catch {
            return [];
          }
        });
        expect(statuses.length).toBeGreaterThan(100);
        expect(statuses.filter((status) => status >= 500)).toEqual([]);
        expect(server.output().stderr).not.toMatch(/\n\s+at /);
        await server.stop();
        expect(pg ? await pg.audit() : audit(dir)).toEqual([]);
      },
      scaled(400_000),
    );
  }
});
