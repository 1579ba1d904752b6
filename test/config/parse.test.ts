import { describe, expect, it } from 'vitest';
import { count, httpUrl, parseSetting, setting } from '../../src/config/parse.js';
import { debias, port, threads } from '../../src/config/schemas.js';

describe('setting', () => {
  it('blank counts as unset; the value is trimmed before it is parsed', () => {
    expect(setting({ DECIDE_THREADS: '  ' }, 'DECIDE_THREADS', threads)).toBeUndefined();
    expect(setting({ DECIDE_THREADS: ' 4 ' }, 'DECIDE_THREADS', threads)).toBe(4);
  });

  it('a bad value: an Error naming the variable, what it must be and the value', () => {
    expect(() => setting({ DECIDE_THREADS: '1e3' }, 'DECIDE_THREADS', threads)).toThrow(
      'DECIDE_THREADS must be a whole number of threads from 1 to 256; got "1e3"',
    );
    expect(() => setting({ DECIDE_PUBLIC_URL: 'ftp://x' }, 'DECIDE_PUBLIC_URL', httpUrl)).toThrow(
      'DECIDE_PUBLIC_URL must be an http(s) URL; got "ftp://x"',
    );
  });

  it('a secret is described by its length, never shown', () => {
    const run = () => setting({ DECIDE_DATABASE_URL: 'hunter2' }, 'DECIDE_DATABASE_URL', httpUrl);
    expect(run).toThrow('DECIDE_DATABASE_URL must be an http(s) URL; got 7 characters');
    expect(run).not.toThrow(/hunter2/);
  });
});

describe('a flag and the variable it stands for: one schema', () => {
  it('the same rule and the same sentence, by the name the value came under', () => {
    expect(parseSetting('--threads', '3', threads)).toBe(3);
    for (const name of ['--threads', 'DECIDE_THREADS']) {
      expect(() => parseSetting(name, '1e3', threads)).toThrow(`${name} must be a whole number of threads from 1 to 256; got "1e3"`);
    }
    expect(() => setting({ DECIDE_THREADS: '1e3' }, 'DECIDE_THREADS', threads)).toThrow(
      'DECIDE_THREADS must be a whole number of threads from 1 to 256; got "1e3"',
    );
  });

  it('port, debias and counts: digits only, the listed words in any case', () => {
    expect(parseSetting('--port', '0', port)).toBe(0);
    expect(parseSetting('--port', '08787', port)).toBe(8787);
    for (const bad of ['65536', '-1', '+80', ' 80', '0x50', '80.0', ''])
      expect(() => parseSetting('--port', bad, port)).toThrow('--port must be a port number');
    expect(parseSetting('--debias', 'Cyclic', debias)).toBe('cyclic');
    expect(() => parseSetting('--debias', 'sideways', debias)).toThrow('--debias must be none, reverse or cyclic; got "sideways"');
    expect(parseSetting('--credits', '1000000000', count(1, 1_000_000_000))).toBe(1e9);
    expect(() => parseSetting('--credits', '9007199254740993', count(1))).toThrow(
      '--credits must be a whole number from 1 to 9007199254740991',
    );
  });
});
