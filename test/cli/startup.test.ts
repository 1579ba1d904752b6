import Database from 'better-sqlite3';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODEL } from '../../src/engine/local/default-model.js';
import { listen } from '../../src/server/listen.js';
import { startingApp } from '../../src/server/starting.js';
import { startFileHost, type FileHostFake } from '../fakes/file-host-fake.js';
import { startProxyFake } from '../fakes/proxy-fake.js';
import { startSystemOneFake, type SystemOneFake } from '../fakes/systemone-fake.js';
import { call } from '../support/api.js';
import { openaiEnv, runCli, runJson, startServe, useServeFixture } from '../support/cli.js';
import { CHOICE, NOUL } from '../support/requests.js';

const SECRET = 'sk-startup-test-engine-secret-5151';
const SYSTEM_ONE = { state: 'The invoice was paid twice.', questions: { refund: { type: 'noul' } } };

/** A port some other program holds. */
async function takenPort(): Promise<{ port: number; release(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, release: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('decide serve at start: the port first, the engine named and checked', () => {
  const serve = useServeFixture();
  let host: FileHostFake;
  let systemone: SystemOneFake;
  beforeAll(async () => {
    host = await startFileHost(Buffer.alloc(4096, 7), DEFAULT_MODEL.fileName);
    systemone = await startSystemOneFake();
  });
  afterAll(async () => {
    await host.close();
    await systemone.close();
  });
  afterEach(() => {
    host.ranges.length = 0;
    systemone.reset();
  });

  it('a taken port is exit 69 before any model work: nothing fetched, nothing loaded', async () => {
    const taken = await takenPort();
    try {
      const cache = path.join(serve.tmp.dir, 'cache');
      const result = await runCli(['serve', '--port', String(taken.port), '--db', serve.tmp.db], {
        XDG_CACHE_HOME: cache,
        DECIDE_DEFAULT_MODEL_URL: host.url,
      });
      expect(result.code).toBe(69);
      expect(result.stderr).toBe(`decide: port ${taken.port} on 127.0.0.1 is already in use; choose another with --port\n`);
      expect(host.ranges).toEqual([]);
      expect(fs.existsSync(path.join(cache, 'decide'))).toBe(false);
    } finally {
      await taken.release();
    }
  });

  it('DECIDE_SYSTEMONE_URL ending in /v1 works; the start line names the engine, its URL, its model and the ledger', async () => {
    const { key } = await runJson(['key', 'create', '--create', '--db', serve.tmp.db]);
    const server = await startServe(['--db', serve.tmp.db], { DECIDE_SYSTEMONE_URL: `${systemone.url}/v1`, DECIDE_MODEL: 'jev-1' });
    const line = await server.waitForStderr(/^decide: engine /);
    expect(line).toMatch(
      new RegExp(
        `^decide: engine systemone \\(model jev-1, debias none, calibration none\\) at ${systemone.url}, unmeasured: no decide eval figures or calibration for this model in this ledger \\(docs/eval\\.md says how to measure it\\), database ${path.resolve(serve.tmp.db)}, `,
      ),
    );
    expect(server.stderr.join('\n')).not.toContain('warning');
    expect((await call(server.url, 'POST', '/v1/decisions', { key, json: NOUL })).status).toBe(200);
    expect(systemone.requests.at(-1)?.path).toBe('/v1/systemone');
    expect(systemone.probes.map((r) => r.path)).toEqual(['/v1/models']);
  });

  it('an engine that cannot be reached or refuses the key: a warning naming the URL and why, /readyz 503; --check-engine exits 69', async () => {
    const taken = await takenPort();
    await taken.release();
    const gone = `http://127.0.0.1:${taken.port}/v1`;
    const server = await startServe(['--db', serve.tmp.db], openaiEnv(gone, SECRET));
    const warning = await server.waitForStderr(/warning: the openai engine/);
    expect(warning).toMatch(
      new RegExp(
        `^decide: warning: the openai engine does not answer: openai engine cannot be reached at ${gone}/models: the connection was refused \\(ECONNREFUSED 127\\.0\\.0\\.1:\\d+\\)\\. Every decision fails until it does`,
      ),
    );
    const ready = await call(server.url, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toEqual({ ledger: 'ok', engine: 'failing' });
    expect((await call(server.url, 'GET', '/healthz')).status).toBe(200);
    await server.stop();

    const strict = await runCli(['serve', '--port', '0', '--check-engine', '--db', serve.tmp.db], openaiEnv(gone, SECRET));
    expect(strict.code).toBe(69);
    expect(strict.stderr).toContain(`decide: the openai engine does not answer: openai engine cannot be reached at ${gone}/models`);
    expect(strict.stdout).toBe('');

    serve.fake.modelsStatus = 401;
    const refused = await runCli(['serve', '--port', '0', '--check-engine', '--db', serve.tmp.db], openaiEnv(serve.fake.url, SECRET));
    expect(refused.code).toBe(69);
    expect(refused.stderr).toContain(`openai engine refused the key at ${serve.fake.url}/models (HTTP 401)`);
    expect(refused.stderr).not.toContain(SECRET);
  });

  it('engine URLs holding credentials: the start line and the engine check name host and path, never the password or a query value', async () => {
    const port = new URL(systemone.url).port;
    const withPassword = `http://operator:S3cretPW-5151@127.0.0.1:${port}/v1`;
    const server = await startServe(['--db', serve.tmp.db], { DECIDE_SYSTEMONE_URL: withPassword, DECIDE_MODEL: 'jev-1' });
    const line = await server.waitForStderr(/^decide: engine /);
    expect(line).toContain(` at http://operator:***@127.0.0.1:${port}, `);
    await server.stop();
    expect(server.output().stderr + server.output().stdout).not.toContain('S3cretPW-5151');

    // An OpenAI-compatible gateway that takes its token in the query, not answering: the warning names it masked.
    const taken = await takenPort();
    await taken.release();
    const gone = `http://alice:PW-5151@127.0.0.1:${taken.port}/v1?token=tok-s3cret-5151`;
    const strict = await runCli(['serve', '--port', '0', '--check-engine', '--db', serve.tmp.db], openaiEnv(gone, SECRET));
    expect(strict.code).toBe(69);
    expect(strict.stderr).toContain(`openai engine cannot be reached at http://alice:***@127.0.0.1:${taken.port}/v1?token=***`);
    for (const secret of ['PW-5151', 'tok-s3cret-5151', SECRET]) expect(strict.stderr).not.toContain(secret);
  });

  it('a remote engine behind HTTPS_PROXY/HTTP_PROXY: its calls and its probe go through the proxy', async () => {
    const proxy = await startProxyFake();
    try {
      const { key } = await runJson(['key', 'create', '--create', '--db', serve.tmp.db]);
      const server = await startServe(['--db', serve.tmp.db], {
        DECIDE_SYSTEMONE_URL: systemone.url,
        DECIDE_MODEL: 'm',
        HTTPS_PROXY: proxy.url,
        HTTP_PROXY: proxy.url,
      });
      expect((await call(server.url, 'POST', '/v1/decisions', { key, json: NOUL })).status).toBe(200);
      expect(new Set(proxy.seen)).toEqual(new Set([`CONNECT ${new URL(systemone.url).host}`]));
      expect(systemone.probes).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('while it starts, the port answers: /healthz 200, /readyz 503 starting, the API 503 with Retry-After, the System One routes in their format', async () => {
    const server = await listen(startingApp(), 0, '127.0.0.1');
    try {
      expect((await call(server.url, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
      const ready = await call(server.url, 'GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.status).toBe('starting');
      const decision = await call(server.url, 'POST', '/v1/decisions', { json: CHOICE });
      expect(decision.status).toBe(503);
      expect(decision.body.code).toBe('engine_unavailable');
      expect(decision.headers['retry-after']).toBe('5');
      // The System One routes answer in their format, with the id its SDKs read.
      for (const [method, path] of [
        ['POST', '/v1/systemone'],
        ['GET', '/v1/models'],
      ] as const) {
        const starting = await call(server.url, method, path, { json: method === 'POST' ? SYSTEM_ONE : undefined });
        expect(starting.status, path).toBe(503);
        expect(starting.headers['retry-after'], path).toBe('5');
        expect(starting.body, path).toEqual({
          detail: {
            error_type: expect.any(String),
            message: expect.stringContaining('decide is starting'),
            x_code: 'engine_unavailable',
            x_request_id: starting.headers['x-typesafe-request-id'],
          },
        });
        expect(starting.headers['x-typesafe-request-id'], path).toMatch(/^req_/);
      }
    } finally {
      await server.close();
    }
  });
});

describe('decide serve: what an operator exposing it should know', () => {
  const serve = useServeFixture();
  const env = () => openaiEnv(serve.fake.url, SECRET);

  it('binding beyond loopback with DECIDE_VERIFY=none is warned about; DECIDE_WEB=off takes the pages and browser keys away', async () => {
    const open = await startServe(['--host', '0.0.0.0', '--db', serve.tmp.db], env());
    expect(open.stderr.join('\n')).toContain(
      'decide: warning: listening on 0.0.0.0, beyond this machine, with DECIDE_VERIFY=none: anyone who reaches it can make keys from a browser without a check.',
    );
    await open.stop();

    const local = await startServe(['--db', serve.tmp.db], env());
    await local.waitForStderr(/^decide: engine/);
    expect(local.stderr.join('\n')).not.toContain('warning');
    await local.stop();

    const off = await startServe(['--host', '0.0.0.0', '--db', serve.tmp.db], { ...env(), DECIDE_WEB: 'off' });
    expect(await off.waitForStderr(/^decide: engine/)).toContain('browser pages off (DECIDE_WEB=off)');
    expect(off.stderr.join('\n')).not.toContain('warning');
    const url = off.url.replace('0.0.0.0', '127.0.0.1');
    expect((await call(url, 'GET', '/')).status).toBe(404);
    expect((await call(url, 'POST', '/v1/pass', { json: {}, headers: { origin: url } })).status).toBe(404);
    expect((await call(url, 'GET', '/healthz')).status).toBe(200);

    const bad = await runCli(['serve', '--port', '0', '--db', serve.tmp.db], { ...env(), DECIDE_WEB: 'maybe' });
    expect(bad.code).toBe(78);
    expect(bad.stderr).toBe('decide: DECIDE_WEB must be on or off; got "maybe"\n');
  });

  it('the operator API over decide serve: DECIDE_ADMIN_TOKEN_FILE, a short token refused without being echoed', async () => {
    const tokenFile = path.join(serve.tmp.dir, 'admin-token');
    const token = 'file-token-0123456789abcdefghijklmnopqrstuv';
    fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    await runJson(['key', 'create', '--create', '--name', 'from the shell', '--db', serve.tmp.db]);
    const server = await startServe(['--db', serve.tmp.db], { ...env(), DECIDE_ADMIN_TOKEN_FILE: tokenFile });
    expect(await server.waitForStderr(/^decide: engine/)).toContain('operator API on');
    expect(server.output().stderr).not.toContain('other users of this machine can read');
    const listed = await call(server.url, 'GET', '/v1/admin/keys', { headers: { authorization: `Bearer ${token}` } });
    expect(listed.body.keys.map((k: { name: string }) => k.name)).toEqual(['from the shell']);
    await server.stop();

    // A file others can read is taken, with a warning naming it and what to do.
    fs.chmodSync(tokenFile, 0o644);
    const loose = await startServe(['--db', serve.tmp.db], { ...env(), DECIDE_ADMIN_TOKEN_FILE: tokenFile });
    await loose.waitForStderr(/^decide: engine/);
    expect(loose.output().stderr).toContain(
      `decide: DECIDE_ADMIN_TOKEN_FILE names ${tokenFile}, which other users of this machine can read (mode 644); make it the server's alone: chmod 600 ${tokenFile}`,
    );
    expect(loose.output().stderr).not.toContain(token);
    await loose.stop();

    const short = await runCli(['serve', '--port', '0', '--db', serve.tmp.db], { ...env(), DECIDE_ADMIN_TOKEN: 'hunter2-too-short' });
    expect(short.code).toBe(78);
    expect(short.stderr).toBe(
      'decide: DECIDE_ADMIN_TOKEN must be at least 32 characters without spaces (e.g. openssl rand -base64 32); got 17 characters\n',
    );
    const both = await runCli(['serve', '--port', '0', '--db', serve.tmp.db], {
      ...env(),
      DECIDE_ADMIN_TOKEN: token,
      DECIDE_ADMIN_TOKEN_FILE: tokenFile,
    });
    expect(both.stderr).toBe('decide: set DECIDE_ADMIN_TOKEN or DECIDE_ADMIN_TOKEN_FILE, not both\n');
    const missing = await runCli(['serve', '--port', '0', '--db', serve.tmp.db], {
      ...env(),
      DECIDE_ADMIN_TOKEN_FILE: `${tokenFile}.gone`,
    });
    expect(missing.code).toBe(78);
    expect(missing.stderr).toContain(`DECIDE_ADMIN_TOKEN_FILE names ${tokenFile}.gone, which cannot be read (ENOENT)`);
  });

  it('decide backup copies the ledger consistently while decisions are being charged, and the copy is a working ledger', async () => {
    const { key, passId } = await runJson(['key', 'create', '--create', '--db', serve.tmp.db]);
    await runJson(['pass', 'fund', '--pass', passId, '--credits', '500', '--db', serve.tmp.db]);
    const server = await startServe(['--db', serve.tmp.db], env());
    let running = true;
    const load = (async () => {
      let made = 0;
      while (running) {
        expect((await call(server.url, 'POST', '/v1/decisions', { key, json: NOUL })).status).toBe(200);
        made++;
      }
      return made;
    })();
    const copies = [];
    for (let i = 0; i < 3; i++) {
      const target = path.join(serve.tmp.dir, 'backup.db');
      const result = await runCli(['backup', target, '--db', serve.tmp.db]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(
        new RegExp(
          `^backed up the ledger ${path.resolve(serve.tmp.db)} to ${target}: 1 keys, 1 passes, [\\d.]+ MB, schema version \\d+\\n$`,
        ),
      );
      const copy = new Database(target, { readonly: true });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
        // Consistent: every credit taken is a committed charge, as in the live ledger at one moment.
        const { credits } = copy.prepare('SELECT credits FROM passes').get() as { credits: number };
        const spent = (
          copy
            .prepare("SELECT coalesce(sum(cost), 0) AS n FROM charges WHERE kind = 'credits' AND state IN ('reserved', 'committed')")
            .get() as { n: number }
        ).n;
        expect(credits + spent).toBe(500);
        copies.push(copy.prepare('SELECT count(*) AS n FROM charges').get());
      } finally {
        copy.close();
      }
    }
    running = false;
    expect(await load).toBeGreaterThan(0);
    expect(fs.readdirSync(serve.tmp.dir).filter((name) => name.includes('partial'))).toEqual([]);

    // The copy serves: a server started on it knows the key.
    await server.stop();
    const restored = await startServe(['--db', path.join(serve.tmp.dir, 'backup.db')], env());
    expect((await call(restored.url, 'GET', '/v1/usage', { key })).status).toBe(200);

    const none = await runCli(['backup', path.join(serve.tmp.dir, 'x.db'), '--db', path.join(serve.tmp.dir, 'absent.db')]);
    expect(none.code).toBe(66);
    expect(none.stderr).toContain(`there is no ledger at ${path.join(serve.tmp.dir, 'absent.db')}`);
    const pg = await runCli(['backup', path.join(serve.tmp.dir, 'x.db'), '--db', 'postgres://decide@127.0.0.1:5432/decide']);
    expect(pg.code).toBe(64);
    expect(pg.stderr).toContain('is on PostgreSQL: back it up with pg_dump');
    const self = await runCli(['backup', serve.tmp.db, '--db', serve.tmp.db]);
    expect(self.code).toBe(64);
  });
});
