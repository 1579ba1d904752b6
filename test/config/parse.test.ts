import { describe, expect, it } from 'vitest';
import { httpUrl, setting, threads } from '../../src/config/parse.js';

describe('setting', () => {
  it('blank counts as unset; the value is trimmed before it is parsed', () => {
    expect(setting({ DECIDE_THREADS: '  ' }, 'DECIDE_THREADS', threads)).toBeUndefined();
    expect(setting({ DECIDE_THREADS: ' 4 ' }, 'DECIDE_THREADS', threads)).toBe(4);
  });

  it('a bad value: an Error naming the variable, what it must be and the value', () => {
    expect(() => setting({ DECIDE_THREADS: '1e3' }, 'DECIDE_THREADS', threads)).toThrow(
      'DECIDE_THREADS must be a whole number of threads from 1 to 256; got "1e3"',
    );
    expect(() => setting({ DECIDE_PUBLIC_URL: 'ftp://x' }, 'DECIDE_PUBLIC_URL', httpUrl)).toThrow('DECIDE_PUBLIC_URL must be an http(s) URL; got "ftp://x"');
  });

  it('a secret is described by its length, never shown', () => {
    const run = () => setting({ DECIDE_DATABASE_URL: 'hunter2' }, 'DECIDE_DATABASE_URL', httpUrl);
    expect(run).toThrow('DECIDE_DATABASE_URL must be an http(s) URL; got 7 characters');
    expect(run).not.toThrow(/hunter2/);
  });
});
