import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { proxyFromEnv } from '../../../src/config/proxy.js';
import { ChecksumError, DownloadError, fetchModelFile, type ModelFile } from '../../../src/engine/local/download.js';
import { startClosingHost } from '../../fakes/closing-host-fake.js';
import { startFileHost, type FileHostFake } from '../../fakes/file-host-fake.js';
import { startProxyFake, type ProxyFake } from '../../fakes/proxy-fake.js';
import { assertBuilt, collectOutput, ROOT, track } from '../../support/cli.js';
import { scaled } from '../../support/time.js';
import { TINY_MODEL } from '../../support/service.js';

const DATA = fs.readFileSync(TINY_MODEL);
const SHA256 = createHash('sha256').update(DATA).digest('hex');

describe('fetching a model file once, resumably, checksum-verified', () => {
  let host: FileHostFake;
  let dir: string;
  let target: string;
  let file: ModelFile;
  beforeAll(async () => {
    host = await startFileHost(DATA);
    file = { url: host.url, bytes: DATA.length, sha256: SHA256 };
  });
  afterAll(() => host.close());
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-fetch-'));
    target = path.join(dir, 'models', 'model.gguf');
    host.ranges.length = 0;
    host.script();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('fetches the file, reports progress up to the full size, and leaves no partial file', async () => {
    const seen: number[] = [];
    await fetchModelFile(file, target, (received, total) => {
      expect(total).toBe(DATA.length);
      seen.push(received);
    });
    expect(fs.readFileSync(target).equals(DATA)).toBe(true);
    expect(seen.at(-1)).toBe(DATA.length);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(fs.readdirSync(path.dirname(target))).toEqual(['model.gguf']);
  });

  it('does nothing when the file is already in place', async () => {
    await fetchModelFile(file, target);
    await fetchModelFile(file, target);
    expect(host.ranges).toHaveLength(1);
  });

  it('resumes with a Range request after the connection drops', async () => {
    host.script({ cutAfter: 700_000 }, {});
    await fetchModelFile(file, target);
    expect(host.ranges[0]).toBe('');
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(host.ranges[1])?.[1]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThanOrEqual(700_000);
    expect(fs.readFileSync(target).equals(DATA)).toBe(true);
  });

  it('resumes a partial file left by an earlier run', async () => {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(`${target}.part`, DATA.subarray(0, 1_000_000));
    await fetchModelFile(file, target);
    expect(host.ranges).toEqual(['bytes=1000000-']);
    expect(fs.readFileSync(target).equals(DATA)).toBe(true);
  });

  it('starts over when the host ignores the range', async () => {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(`${target}.part`, Buffer.alloc(500_000, 1));
    host.script({ ignoreRange: true });
    await fetchModelFile(file, target);
    expect(fs.readFileSync(target).equals(DATA)).toBe(true);
  });

  it('keeps nothing whose checksum is wrong, and says what it expected', async () => {
    const wrong = { ...file, sha256: '0'.repeat(64) };
    const error = await fetchModelFile(wrong, target).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChecksumError);
    expect((error as Error).message).toContain(`expected ${DATA.length} bytes with SHA-256 ${'0'.repeat(64)}`);
    expect((error as Error).message).toContain(SHA256);
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.existsSync(`${target}.part`)).toBe(false);
    expect(host.ranges).toHaveLength(1); // a wrong file is not fetched again and again
  });

  it('gives up after three failed attempts, naming the HTTP status', async () => {
    host.script({ status: 404 });
    await expect(fetchModelFile(file, target)).rejects.toThrow('the server answered HTTP 404');
    expect(host.ranges).toHaveLength(3);
    expect(fs.existsSync(target)).toBe(false);
  });

  it('names the cause of a failure: refused, DNS, TLS', async () => {
    const refused = await fetchModelFile({ ...file, url: 'http://127.0.0.1:9/model.gguf' }, target, undefined, {}).catch((e: Error) => e);
    expect(refused).toBeInstanceOf(DownloadError);
    expect((refused as Error).message).toBe('the connection was refused (ECONNREFUSED 127.0.0.1:9)');
    expect(fs.existsSync(target)).toBe(false);

    const unnamed = await fetchModelFile({ ...file, url: 'http://decide-test-host.invalid/model.gguf' }, target, undefined, {}).catch(
      (e: Error) => e,
    );
    expect((unnamed as Error).message).toMatch(/^the host name decide-test-host\.invalid does not resolve \(DNS: (ENOTFOUND|EAI_AGAIN)\)$/);

    const tls = await selfSignedHost(dir);
    try {
      const refusedTls = await fetchModelFile({ ...file, url: tls.url }, target, undefined, {}).catch((e: Error) => e);
      expect((refusedTls as Error).message).toMatch(
        /^TLS failed \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\): a proxy that inspects TLS needs its CA certificate in NODE_EXTRA_CA_CERTS$/,
      );
    } finally {
      await tls.close();
    }
  });
});

describe('through a proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)', () => {
  let host: FileHostFake;
  let proxy: ProxyFake;
  let dir: string;
  let file: ModelFile;
  beforeAll(async () => {
    host = await startFileHost(DATA);
    proxy = await startProxyFake();
    file = { url: host.url, bytes: DATA.length, sha256: SHA256 };
  });
  afterAll(async () => {
    await host.close();
    await proxy.close();
  });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-proxy-'));
    proxy.seen.length = 0;
    proxy.requireAuth(null);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const target = () => path.join(dir, 'model.gguf');
  const hostPort = () => new URL(host.url).host;

  it('fetches through the proxy the environment names, either case, and around it for NO_PROXY hosts', async () => {
    await fetchModelFile(file, target(), undefined, proxyFromEnv({ HTTP_PROXY: proxy.url }));
    expect(fs.readFileSync(target()).equals(DATA)).toBe(true);
    expect(proxy.seen).toEqual([`CONNECT ${hostPort()}`]);

    fs.rmSync(target());
    await fetchModelFile(file, target(), undefined, proxyFromEnv({ http_proxy: proxy.url, NO_PROXY: 'example.org, 127.0.0.1' }));
    expect(proxy.seen).toHaveLength(1);
    expect(fs.readFileSync(target()).equals(DATA)).toBe(true);
  });

  it('says the proxy refused the tunnel (407) and how to give it credentials, and passes them from the URL', async () => {
    proxy.requireAuth('alice:s3cret');
    const refused = await fetchModelFile(file, target(), undefined, proxyFromEnv({ HTTP_PROXY: proxy.url })).catch((e: Error) => e);
    expect((refused as Error).message).toBe(
      `the proxy refused the tunnel with HTTP 407: the proxy wants credentials, put user:password@ in its URL (through HTTP_PROXY=${proxy.url})`,
    );
    const withCredentials = proxy.url.replace('http://', 'http://alice:s3cret@');
    await fetchModelFile(file, target(), undefined, proxyFromEnv({ HTTP_PROXY: withCredentials }));
    expect(fs.readFileSync(target()).equals(DATA)).toBe(true);
    // The password is masked wherever the proxy is named.
    const down = await fetchModelFile(
      { ...file, url: host.url.replace(/:\d+\//, ':9/') },
      path.join(dir, 'other.gguf'),
      undefined,
      proxyFromEnv({ HTTP_PROXY: withCredentials }),
    ).catch((e: Error) => e);
    expect((down as Error).message).not.toContain('s3cret');
  });

  it('a proxy that cannot be reached is named', async () => {
    const error = await fetchModelFile(
      file,
      target(),
      undefined,
      proxyFromEnv({ HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9' }),
    ).catch((e: Error) => e);
    expect((error as Error).message).toBe(
      'the connection was refused (ECONNREFUSED 127.0.0.1:9) (through HTTPS_PROXY=http://127.0.0.1:9, HTTP_PROXY=http://127.0.0.1:9)',
    );
  });

  it('a proxy variable that is no URL is refused by name', async () => {
    await expect(fetchModelFile(file, target(), undefined, proxyFromEnv({ HTTPS_PROXY: 'proxy.corp:3128' }))).rejects.toThrow(
      'HTTPS_PROXY must be a proxy URL such as http://proxy.example:3128; got "proxy.corp:3128"',
    );
  });
});

describe('from a mirror that closes the connection after the file (HTTP/1.0, python3 -m http.server)', () => {
  const BIG = randomBytes(8_000_000);
  const BIG_SHA = createHash('sha256').update(BIG).digest('hex');
  let dir: string;
  beforeAll(() => assertBuilt());
  beforeEach(() => void (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-mirror-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /**
   * Downloads `times` times in a child process with the built package: the crash this
   * guards against was an AssertionError thrown from a socket's 'end' handler, which
   * nothing can catch and which would take the test runner down with it.
   */
  async function downloadInChild(url: string, times: number, nodeOptions: string[] = []) {
    const script = `
      const { fetchModelFile } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/engine/local/download.js')).href)});
      const [url, bytes, sha256, dir, times] = process.argv.slice(1);
      for (let i = 0; i < Number(times); i++) await fetchModelFile({ url, bytes: Number(bytes), sha256 }, dir + '/model-' + i + '.gguf', undefined, {});
      console.log('fetched ' + times);`;
    const child = track(
      spawn(process.execPath, [...nodeOptions, '--input-type=module', '-e', script, url, String(BIG.length), BIG_SHA, dir, String(times)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    return collectOutput(child, `download from ${url}`, scaled(60_000));
  }

  it('a server that sends the file in bursts and closes with the last one: every download completes, no crash', async () => {
    // Before the fix about half of these downloads crashed the process (undici's assert(!this.paused)).
    const host = await startClosingHost(BIG);
    try {
      const result = await downloadInChild(host.url, 8);
      expect(result.stderr).not.toContain('AssertionError');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe('fetched 8');
      for (let i = 0; i < 8; i++) expect(fs.statSync(path.join(dir, `model-${i}.gguf`)).size).toBe(BIG.length);
      expect(fs.readdirSync(dir).filter((name) => name.endsWith('.part'))).toEqual([]);

      // The .part a crashed start left behind is resumed where it stopped.
      const target = path.join(dir, 'resumed.gguf');
      fs.writeFileSync(`${target}.part`, BIG.subarray(0, 3_000_000));
      host.ranges.length = 0;
      await fetchModelFile({ url: host.url, bytes: BIG.length, sha256: BIG_SHA }, target, undefined, {});
      expect(host.ranges).toEqual(['bytes=3000000-']);
      expect(fs.readFileSync(target).equals(BIG)).toBe(true);
    } finally {
      await host.close();
    }
  });

  it('a connection that drops while the .part file is being opened: the download resumes, it does not hang', async () => {
    // Before the fix the body's error went out before anything listened, and the download waited for good.
    const host = await startFileHost(BIG);
    try {
      host.script({ cutAfter: 700_000 }, {});
      const result = await downloadInChild(host.url, 1, ['--import', path.join(ROOT, 'test/support/hooks/slow-file-open.mjs')]);
      expect(result.code, result.stderr).toBe(0);
      expect(host.ranges.slice(0, 1)).toEqual(['']);
      expect(fs.readFileSync(path.join(dir, 'model-0.gguf')).equals(BIG)).toBe(true);
    } finally {
      await host.close();
    }
  });

  it('python3 -m http.server: every download completes, and a .part left behind is started over (it ignores Range)', async () => {
    const served = path.join(dir, 'served');
    fs.mkdirSync(served);
    fs.writeFileSync(path.join(served, 'model.gguf'), BIG);
    const python = track(
      spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', served], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`python3 -m http.server did not start: ${out}`)), scaled(10_000));
        python.stdout!.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          const match = /port (\d+)/.exec(out);
          if (match) {
            clearTimeout(timer);
            resolve(Number(match[1]));
          }
        });
      });
      const url = `http://127.0.0.1:${port}/model.gguf`;
      const result = await downloadInChild(url, 5);
      expect(result.stderr).not.toContain('AssertionError');
      expect(result.code, result.stderr).toBe(0);

      // It ignores Range (200 with the whole file): a .part left behind is started over, never appended to.
      const target = path.join(dir, 'restarted.gguf');
      fs.writeFileSync(`${target}.part`, BIG.subarray(0, 3_000_000));
      await fetchModelFile({ url, bytes: BIG.length, sha256: BIG_SHA }, target, undefined, {});
      expect(fs.readFileSync(target).equals(BIG)).toBe(true);
    } finally {
      python.kill('SIGKILL');
    }
  });
});

/** An https server on loopback with a certificate of its own making, as a TLS-inspecting proxy presents. */
async function selfSignedHost(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const key = path.join(dir, 'tls.key');
  const cert = path.join(dir, 'tls.crt');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'],
    { stdio: 'ignore' },
  );
  const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (_req, res) => res.end('no'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}/model.gguf`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
