import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { DEFAULT_ENGINE_TIMEOUT_MS } from '../../src/config/variables.js';
import { BIN, collectOutput, openaiEnv, ROOT, runCli, runJson, startServe, track, useServeFixture } from '../support/cli.js';
import { NOUL } from '../support/requests.js';
import { scaled } from '../support/time.js';
import { readEnvironment, readNginx, readUnit } from './config-files.js';

/**
 * examples/decide.service (with its examples/decide.env) and examples/nginx.conf, as
 * systemd and nginx would use them. Neither runs here, so decide is started with the
 * unit's command line, folder and environment under a temporary root (the paths the
 * unit names, moved below it), and nginx is represented by the headers its
 * configuration makes it send: decide never sees nginx, only those headers. Where the
 * tools are installed, `systemd-analyze verify` and `nginx -t` check the files too.
 */

const EXAMPLES = path.join(ROOT, 'examples');
const UNIT = path.join(EXAMPLES, 'decide.service');
const NGINX = path.join(EXAMPLES, 'nginx.conf');

/** An executable on the PATH, or in the sbin folders a user's PATH often lacks. */
function which(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin'];
  return dirs.map((dir) => path.join(dir, name)).find((file) => fs.existsSync(file));
}

/** The unit's [Service] section, and its one value of `key`. */
function service() {
  const section = readUnit(UNIT).get('Service')!;
  const one = (key: string) => {
    expect(section.get(key), key).toHaveLength(1);
    return section.get(key)![0];
  };
  return { section, one };
}

/** `decide serve` as the unit starts it, with the paths it names moved under `root`. */
function asTheUnitStartsIt(root: string) {
  const { section, one } = service();
  const under = (file: string) => path.join(root, file);
  // What systemd makes before it starts the service.
  fs.mkdirSync(under(`/var/lib/${one('StateDirectory')}`), { recursive: true });
  fs.mkdirSync(under(`/var/cache/${one('CacheDirectory')}`), { recursive: true });
  const [bin, serve, ...args] = one('ExecStart').split(/\s+/);
  expect([path.isAbsolute(bin), path.basename(bin), serve]).toEqual([true, 'decide', 'serve']);
  expect(one('EnvironmentFile')).toBe('/etc/decide/decide.env'); // where the unit's comment installs examples/decide.env
  const env = {
    ...readEnvironment(fs.readFileSync(path.join(EXAMPLES, 'decide.env'), 'utf8').split('\n')),
    ...readEnvironment(section.get('Environment') ?? []),
  };
  for (const [name, value] of Object.entries(env)) if (value.startsWith('/var/')) env[name] = under(value);
  const flag = (name: string) => args[args.indexOf(name) + 1];
  const db = under(flag('--db'));
  const at = args.indexOf('--port');
  // Its port, 0 here: tests run side by side.
  const rest = [...args.slice(0, at), ...args.slice(at + 2)].map((arg) => (arg === flag('--db') ? db : arg));
  return { one, env, db, args: rest, cwd: under(one('WorkingDirectory')), listen: `${flag('--host')}:${flag('--port')}` };
}

describe('examples/decide.service: decide serve as systemd runs it', () => {
  const fixture = useServeFixture();

  it('starts with its command, folder and environment, answers /readyz, and stops on SIGTERM with exit 0', async () => {
    const unit = asTheUnitStartsIt(fixture.tempDb().dir);
    expect(unit.one('User')).not.toMatch(/^(root|0)?$/);
    expect(unit.cwd).toBe(path.dirname(unit.db)); // the ledger in the working directory systemd made
    // The engine is the fake's: decide.env leaves the local engine, which needs a model.
    const serving = await startServe(unit.args, { ...unit.env, ...openaiEnv(fixture.fake.url, 'sk-unit') }, scaled(8_000), {
      cwd: unit.cwd,
    });
    const line = await serving.waitForStderr(/^decide: engine openai/);
    expect(line).toContain(`database ${unit.db}`);
    expect(line).toContain('browser pages off (DECIDE_WEB=off)');
    expect((await request(`${serving.url}/readyz`)).statusCode).toBe(200);
    expect(fs.existsSync(unit.db)).toBe(true);
    // systemd's stop: SIGTERM, and SIGKILL after TimeoutStopSec, which must outlast a decision in flight.
    expect(Number(unit.one('TimeoutStopSec')) * 1000).toBeGreaterThan(
      Number(unit.env.DECIDE_ENGINE_TIMEOUT_MS ?? DEFAULT_ENGINE_TIMEOUT_MS),
    );
    expect(await serving.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  });

  it('restarts what may clear (a taken port, 69), not what a restart cannot mend (a bad setting, 78)', async () => {
    const unit = asTheUnitStartsIt(fixture.tempDb().dir);
    expect(unit.one('Restart')).toBe('on-failure');
    const prevented = unit.one('RestartPreventExitStatus').split(/\s+/).map(Number);
    expect(prevented.sort((a, b) => a - b)).toEqual([EXIT.usage, EXIT.dataErr, EXIT.notFound, EXIT.config]);

    const badSetting = await runCli(['serve', '--port', '0', ...unit.args], { ...unit.env, DECIDE_TRUST_PROXY: 'nginx' });
    expect(badSetting.stderr).toContain('DECIDE_TRUST_PROXY');
    expect(prevented).toContain(badSetting.code);

    const engine = openaiEnv(fixture.fake.url, 'sk-unit');
    const first = await startServe(unit.args, { ...unit.env, ...engine }, scaled(8_000), { cwd: unit.cwd });
    const taken = await runCli(['serve', ...unit.args, '--port', String(first.port), '--db', path.join(fixture.tempDb().dir, 'other.db')], {
      ...unit.env,
      ...engine,
    });
    expect(taken.code).toBe(EXIT.unavailable);
    expect(prevented).not.toContain(taken.code);
  });

  it.skipIf(!which('systemd-analyze'))('systemd-analyze verify has nothing to say about it', async () => {
    const dir = fixture.tempDb().dir;
    fs.symlinkSync(BIN, path.join(dir, 'decide'));
    // The bin and the environment file where this machine has them.
    const text = fs
      .readFileSync(UNIT, 'utf8')
      .replace(/^ExecStart=\S+/m, `ExecStart=${path.join(dir, 'decide')}`)
      .replace(/^EnvironmentFile=.*$/m, `EnvironmentFile=${path.join(EXAMPLES, 'decide.env')}`);
    fs.writeFileSync(path.join(dir, 'decide.service'), text);
    const verified = await collectOutput(
      track(spawn(which('systemd-analyze')!, ['verify', path.join(dir, 'decide.service')], { stdio: ['ignore', 'pipe', 'pipe'] })),
      'systemd-analyze verify',
      scaled(20_000),
    );
    expect(verified.stderr).toBe('');
    expect(verified.code).toBe(0);
  });
});

/** The headers nginx sends upstream from `location`, for a request from `remoteAddr` that carried `forwardedFor` itself. */
function sentByNginx(location: string, request: { remoteAddr: string; forwardedFor?: string; host: string }): Record<string, string> {
  const variables: Record<string, string> = {
    // nginx: the request's own X-Forwarded-For with $remote_addr appended, or $remote_addr alone.
    $proxy_add_x_forwarded_for: request.forwardedFor ? `${request.forwardedFor}, ${request.remoteAddr}` : request.remoteAddr,
    $scheme: 'https',
    $host: request.host,
  };
  const headers: Record<string, string> = {};
  for (const { args } of readNginx(NGINX).filter((d) => d.block === location && d.name === 'proxy_set_header')) {
    const [name, value] = args;
    if (value === '') continue; // nginx leaves a header with an empty value out
    headers[name.toLowerCase()] = value.replace(/\$\w+/g, (variable) => {
      if (!(variable in variables)) throw new Error(`nginx.conf uses ${variable}: say here what nginx puts there`);
      return variables[variable];
    });
  }
  return headers;
}

describe('examples/nginx.conf in front of decide (DECIDE_TRUST_PROXY=1)', () => {
  const fixture = useServeFixture();
  const directives = readNginx(NGINX);
  const location = directives.find((d) => d.name === 'proxy_pass')!.block;

  it('sends what docs/operations.md says, to where the unit listens', () => {
    const upstream = directives.find((d) => d.block.startsWith('upstream') && d.name === 'server')!;
    expect(upstream.args[0]).toBe(asTheUnitStartsIt(fixture.tempDb().dir).listen);
    const row = fs
      .readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8')
      .split('\n')
      .find((line) => line.startsWith('| nginx |'))!;
    const documented = [...row.matchAll(/`proxy_set_header ([^`;]+);`/g)].map((m) => m[1].split(/\s+/));
    expect(documented.length).toBeGreaterThan(0);
    for (const args of documented)
      expect(directives.filter((d) => d.block === location && d.name === 'proxy_set_header').map((d) => d.args)).toContainEqual(args);
  });

  it('decide counts the address nginx saw, whatever the client wrote in X-Forwarded-For', async () => {
    const unit = asTheUnitStartsIt(fixture.tempDb().dir);
    expect(unit.env.DECIDE_TRUST_PROXY).toBe('1');
    // One free decision per client IP, so a second one from the same client is refused.
    const serving = await startServe(
      unit.args,
      { ...unit.env, ...openaiEnv(fixture.fake.url, 'sk-nginx'), DECIDE_FREE_PER_IP: '1' },
      scaled(8_000),
      { cwd: unit.cwd },
    );
    const { key } = await runJson(['key', 'create', '--db', unit.db]);
    const host = directives.find((d) => d.name === 'server_name' && d.block === location.split(' > ')[0])!.args[0];
    const decide = async (remoteAddr: string, forwardedFor?: string) => {
      const headers = {
        ...sentByNginx(location, { remoteAddr, forwardedFor, host }),
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
      };
      const res = await request(`${serving.url}/v1/decisions`, { method: 'POST', headers, body: JSON.stringify(NOUL) });
      return { status: res.statusCode, code: ((await res.body.json()) as { code?: string }).code };
    };
    expect(await decide('203.0.113.7', '198.51.100.1')).toMatchObject({ status: 200 });
    // The same client, claiming another address: still the same client, its one free
    // decision spent (rate_limited: the per-IP and site limits' refusal; the key has 19 left).
    expect(await decide('203.0.113.7', '198.51.100.2')).toEqual({ status: 429, code: 'rate_limited' });
    // Another client nginx saw: its own free decision.
    expect(await decide('203.0.113.8')).toMatchObject({ status: 200 });
  });

  it.skipIf(!which('nginx') || !which('openssl'))('nginx -t accepts it (with a certificate made for the test)', async () => {
    const dir = fixture.tempDb().dir;
    const [cert, certKey] = [path.join(dir, 'fullchain.pem'), path.join(dir, 'privkey.pem')];
    execFileSync(
      which('openssl')!,
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=decide.example.com', '-keyout', certKey, '-out', cert],
      { stdio: 'ignore' },
    );
    const site = fs
      .readFileSync(NGINX, 'utf8')
      .replace(/^(\s*ssl_certificate) \S+;/m, `$1 ${cert};`)
      .replace(/^(\s*ssl_certificate_key) \S+;/m, `$1 ${certKey};`);
    fs.writeFileSync(path.join(dir, 'site.conf'), site);
    // The main file a distribution's nginx has, reduced to what -t needs, its paths in the test's folder.
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${dir}/${kind};`).join('\n');
    fs.writeFileSync(
      path.join(dir, 'nginx.conf'),
      `pid ${dir}/nginx.pid;\nerror_log stderr;\nevents {}\nhttp {\n${temp}\n  access_log off;\n  include ${dir}/site.conf;\n}\n`,
    );
    const tested = await collectOutput(
      track(spawn(which('nginx')!, ['-t', '-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: ['ignore', 'pipe', 'pipe'] })),
      'nginx -t',
      scaled(20_000),
    );
    expect(tested.stderr).toContain('test is successful');
    expect(tested.code).toBe(0);
  });
});
