import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { DecideError } from '../../src/client/errors.js';
import { buildRequest, modeOf } from '../../src/cli/ask-request.js';
import { tripsGate } from '../../src/cli/ask.js';
import { duration, retryNotice } from '../../src/cli/client-call.js';
import { CLIENT_EXIT, exitFor, Failure } from '../../src/cli/exit-codes.js';
import { DEFAULT_URL, resolveKey, resolveUrl, shownUrl } from '../../src/cli/config.js';
import { readContext } from '../../src/cli/input.js';
import { withoutUrlSecrets } from '../../src/config/shown-url.js';
import { generateKey } from '../../src/contract/key.js';
import { NOUL } from '../support/requests.js';
import { tempFolder } from './helpers.js';

/** The pieces of the client commands, in process. */

function failureOf(work: () => unknown): Failure {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(Failure);
    return error as Failure;
  }
  throw new Error('expected a Failure');
}

describe('configuration', () => {
  const tmp = tempFolder();
  afterAll(() => tmp.remove());

  it('URL: --url, else DECIDE_URL, else the default; only http(s)', () => {
    expect(resolveUrl({}, {})).toBe(DEFAULT_URL);
    expect(DEFAULT_URL).toBe('http://127.0.0.1:8787');
    expect(resolveUrl({}, { DECIDE_URL: 'https://decide.example.org' })).toBe('https://decide.example.org');
    expect(resolveUrl({ url: 'http://10.0.0.2:9000' }, { DECIDE_URL: 'https://decide.example.org' })).toBe('http://10.0.0.2:9000');
    expect(failureOf(() => resolveUrl({}, { DECIDE_URL: 'decide.example.org' }))).toMatchObject({ exitCode: 2 });
    expect(failureOf(() => resolveUrl({}, { DECIDE_URL: 'decide.example.org' })).message).toContain(
      'DECIDE_URL must be an http(s) URL; got "decide.example.org"',
    );
    // A password in the URL never reaches the message.
    expect(failureOf(() => resolveUrl({ url: 'ftp://me:hunter2@h/' }, {})).message).toBe(
      '--url must be an http(s) URL; got "ftp://me:***@h/" (expected e.g. http://127.0.0.1:8787)',
    );
    // Kept as written: the client takes a last /v1 off, and drops the query it never sends.
    expect(resolveUrl({ url: 'http://10.0.0.2:9000/v1/' }, {})).toBe('http://10.0.0.2:9000/v1/');
  });

  it('a URL as every command shows it: the password, a lone user name and query values masked, host and path kept', () => {
    expect(shownUrl('https://user:secret@decide.example.org/')).toBe('https://user:***@decide.example.org');
    expect(shownUrl('https://ghp_0123456789@decide.example.org/api/')).toBe('https://***@decide.example.org/api');
    expect(shownUrl('http://h:8787/mcp?token=s3cret&v=1&debug')).toBe('http://h:8787/mcp?token=***&v=***&debug');
    expect(shownUrl('http://h/p#access_token=s3cret')).toBe('http://h/p#***');
    // What no parser takes (a mistyped setting) is masked by its look.
    expect(shownUrl('decide.example.org?token=s3cret')).toBe('decide.example.org?token=***');
    expect(shownUrl('htp//me:hunter2@h')).toBe('htp//me:***@h');
    expect(shownUrl('/models/qwen.gguf')).toBe('/models/qwen.gguf');
    // The secrets of a URL, wherever a message quotes them, as written or decoded.
    expect(
      withoutUrlSecrets('fetch failed for http://u:p%40ss@h/?token=s3cret%21: s3cret! p@ss', 'http://u:p%40ss@h/?token=s3cret%21'),
    ).toBe('fetch failed for http://u:***@h?token=***: *** ***');
  });

  it('key: --key-file (trimmed) wins over DECIDE_API_KEY; a bad one is exit 3 and never echoed', () => {
    const key = generateKey();
    const other = generateKey();
    expect(resolveKey({}, { DECIDE_API_KEY: ` ${key}\n` })).toBe(key);
    expect(resolveKey({ keyFile: tmp.write('k', `${other}\r\n`) }, { DECIDE_API_KEY: key })).toBe(other);
    expect(failureOf(() => resolveKey({}, {}))).toMatchObject({ exitCode: CLIENT_EXIT.auth });
    expect(failureOf(() => resolveKey({}, { DECIDE_API_KEY: '   ' })).message).toContain('no API key');
    expect(failureOf(() => resolveKey({}, {}, 'https://user:pw@decide.example.org/')).message).toContain(
      "in a browser at https://decide.example.org/ (the service's home page)",
    );
    const typo = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    const refused = failureOf(() => resolveKey({}, { DECIDE_API_KEY: typo }));
    expect(refused.exitCode).toBe(3);
    expect(refused.message).not.toContain(typo);
  });

  it('--context: text, @file, - for stdin', async () => {
    expect(await readContext('plain facts here')).toBe('plain facts here');
    expect(await readContext(`@${tmp.write('facts', 'from a file')}`)).toBe('from a file');
    expect(await readContext('-', Readable.from([Buffer.from('from '), Buffer.from('stdin')]))).toBe('from stdin');
    await expect(readContext('@/no/such/file')).rejects.toMatchObject({ exitCode: 2 });
  });
});

describe('the request from the flags', () => {
  it('mode: options → choice, levels → score, neither → noul, --mode wins', () => {
    expect(modeOf({})).toBe('noul');
    expect(modeOf({ option: ['a', 'b'] })).toBe('choice');
    expect(modeOf({ level: ['a', 'b', 'c'] })).toBe('score');
    expect(modeOf({ mode: 'noul', option: ['a', 'b'] })).toBe('noul');
    expect(failureOf(() => modeOf({ option: ['a'], level: ['b'] })).exitCode).toBe(2);
  });

  it('builds the contract request, trimmed, with its depth', () => {
    expect(buildRequest(` ${NOUL.question} `, NOUL.context, {}, 'stress')).toEqual({ ...NOUL, depth: 'stress' });
    expect(buildRequest(NOUL.question, NOUL.context, { option: ['yes ', 'no'] }, 'standard')).toMatchObject({
      mode: 'choice',
      options: ['yes', 'no'],
    });
  });

  it('--fail-on: "no" fails on no; "unclear" fails on anything but yes', () => {
    expect(['yes', 'no', 'unclear', 'needs-context'].filter((s) => tripsGate('no', s as 'no'))).toEqual(['no']);
    expect(['yes', 'no', 'unclear', 'needs-context'].filter((s) => tripsGate('unclear', s as 'no'))).toEqual([
      'no',
      'unclear',
      'needs-context',
    ]);
  });
});

describe('exit codes of failed calls', () => {
  it.each([
    [0, 'unreachable', 5],
    [0, 'timeout', 5],
    [400, 'invalid_request', 2],
    [400, 'invalid_json', 2],
    [413, 'payload_too_large', 2],
    [415, 'unsupported_media_type', 2],
    [422, 'idempotency_key_reused', 2],
    [401, 'unauthorized', 3],
    [402, 'pass_required', 4],
    [402, 'insufficient_credits', 4],
    [429, 'free_limit_reached', 4],
    [429, 'rate_limited', 4],
    [429, 'engine_busy', 5],
    [404, 'not_found', 5],
    [405, 'method_not_allowed', 5],
    [409, 'idempotency_in_progress', 5],
    [500, 'internal_error', 5],
    [502, 'engine_bad_response', 5],
    [503, 'engine_unavailable', 5],
    [504, 'engine_timeout', 5],
    [200, 'bad_response', 5],
    [502, 'bad_response', 5],
  ] as const)('%i %s → %i', (status, code, exit) => {
    expect(exitFor(new DecideError(status, code, 'x'))).toBe(exit);
  });

  it('Retry-After in words', () => {
    expect([5, 119, 120, 3599, 3600, 18_780].map(duration)).toEqual(['5 s', '119 s', '2 min', '1 h 0 min', '1 h 0 min', '5 h 13 min']);
  });

  it('a retry notice says what failed and when the next attempt comes', () => {
    const error = new DecideError(429, 'engine_busy', 'the decision engine is busy', 3);
    expect(retryNotice({ attempt: 1, delayMs: 3000, error })).toBe(
      'the decision engine is busy (429 engine_busy); retrying in 3 s (attempt 2 of 3)',
    );
  });
});
