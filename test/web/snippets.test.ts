import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, ROOT, runProgram } from '../support/cli.js';
import { startWithOpenAI, type Running } from '../support/service.js';

interface Builders {
  curl(origin: string, request: object, key: string): string;
  typescript(origin: string, request: object, key: string): string;
}

/** static/snippets.js's builders, as the page runs them (the script outside a browser defines only them). */
function builders(): Builders {
  const sandbox: { decideSnippets?: Builders } = {};
  vm.runInNewContext(fs.readFileSync(path.join(ROOT, 'static', 'snippets.js'), 'utf8'), sandbox);
  return sandbox.decideSnippets!;
}

/** What a shell would do with a careless quote: every character here must reach the server as typed. */
const AWKWARD = {
  mode: 'choice',
  question: `Is it O'Brien's "plan", at $HOME or \`uname\` — $(echo no)?\nA second line, \\n not a newline; 'twice''`,
  // A shell's parameter expansion, written so that it is not a template's placeholder here.
  context: 'Facts with $PATH, a single \' and a double " quote,\nand a line of their own: !history and $' + '{braces}.',
  options: [`O'Brien's "plan"`, '$(rm -rf /tmp/never)'],
  depth: 'standard',
};

/**
 * The pages' "as code" snippets run as a reader would run them: the curl command
 * through bash against the real server, the typed client's call through Node against
 * the built package, with a request full of what shells and string literals treat
 * specially; each must send exactly the request the page describes.
 */
describe('a request as code (static/snippets.js)', () => {
  let svc: Running;
  let key: string;
  const { curl, typescript } = builders();
  beforeAll(async () => {
    assertBuilt();
    svc = await startWithOpenAI();
    key = (await svc.newKey()).key;
  });
  afterAll(() => svc?.close());

  it('the curl command is one bash command that sends the request exactly as typed', async () => {
    const command = curl(svc.url, AWKWARD, key);
    const syntax = await runProgram('bash', ['-n', '-c', command]);
    expect(syntax.stderr).toBe('');
    expect(syntax.code).toBe(0);

    const ran = await runProgram('bash', ['-c', command]);
    expect(ran.code, ran.stderr).toBe(0);
    const answer = JSON.parse(ran.stdout);
    const direct = await svc.call('POST', '/v1/decisions', { key, json: AWKWARD });
    expect(direct.status).toBe(200);
    expect(answer.question).toBe(direct.body.question);
    expect(Object.keys(answer.result.probabilities)).toEqual(AWKWARD.options);
    expect(answer.question).toContain('O\'Brien\'s "plan", at $HOME or `uname`');
  });

  it('the TypeScript is the typed client call that sends the same request', async () => {
    const source = typescript(svc.url, { ...AWKWARD, mode: 'score', levels: ['low', "it's $1", 'high'] }, key);
    expect(source).toContain(`apiKey: ${JSON.stringify(key)}`);
    // Inside the package folder, so that `decide-service` resolves to the package itself; the call has no types to strip.
    const dir = fs.mkdtempSync(path.join(ROOT, 'examples', '.out-snippet-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'snippet.mjs'),
        source.replace('console.log(answer.result, answer.signal);', 'console.log(JSON.stringify(answer));'),
      );
      const ran = await runProgram(process.execPath, [path.join(dir, 'snippet.mjs')]);
      expect(ran.code, ran.stderr).toBe(0);
      const answer = JSON.parse(ran.stdout);
      expect(answer.mode).toBe('score');
      expect(Object.keys(answer.result.probabilities)).toEqual(['low', "it's $1", 'high']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a placeholder key stays a placeholder, and only the fields of the mode are sent', () => {
    const noul = curl('https://decide.example.com', { ...AWKWARD, mode: 'noul' }, 'dcd_api_…abcd');
    expect(noul).toContain("-H 'Authorization: Bearer dcd_api_…abcd'");
    expect(noul).toContain("curl -sS 'https://decide.example.com/v1/decisions'");
    expect(noul).not.toContain('"options"');
  });
});
