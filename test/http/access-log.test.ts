import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { batchedLog } from '../../src/http/access-log.js';
import { assertBuilt, ROOT } from '../support/cli.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('access log: batched writes', () => {
  it('writes the lines of one event-loop turn in one write, in order, once the turn ends', async () => {
    const writes: string[] = [];
    const log = batchedLog((chunk) => writes.push(chunk));
    log('{"n":1}');
    log('{"n":2}');
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n']);
    log('{"n":3}');
    await turn();
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n', '{"n":3}\n']);
  });

  it('flush writes what is buffered at once (what exit does), and nothing twice', async () => {
    const writes: string[] = [];
    const log = batchedLog((chunk) => writes.push(chunk));
    log('a');
    log.flush();
    expect(writes).toEqual(['a\n']);
    await turn();
    log.flush();
    expect(writes).toEqual(['a\n']);
  });

  it('does not hold more than 64 KiB: a big turn goes out in several writes, nothing lost', async () => {
    const writes: string[] = [];
    const log = batchedLog((chunk) => writes.push(chunk));
    const line = 'x'.repeat(1023);
    for (let i = 0; i < 200; i++) log(line);
    expect(writes.length).toBeGreaterThanOrEqual(3);
    await turn();
    expect(writes.join('')).toBe(`${line}\n`.repeat(200));
  });

  it("decide serve's stdout log loses no line on process.exit, even one logged in the same turn", () => {
    assertBuilt();
    const module = pathToFileURL(path.join(ROOT, 'dist', 'http', 'access-log.js')).href;
    const script = `const { stdoutLog } = await import(${JSON.stringify(module)}); const log = stdoutLog(); log('one'); log('two'); process.exit(0);`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(out).toBe('one\ntwo\n');
  });
});
