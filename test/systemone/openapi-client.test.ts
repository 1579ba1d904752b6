import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithOpenAI, type Running } from '../support/service.js';
import { BIN, compileStrict, run } from '../support/typescript.js';

/**
 * What a user of the OpenAPI document does: generate a typed client from it with
 * openapi-typescript, write a System One call with a JSON-object state, compile it
 * strictly and run it against the server. Any JSON value is one named schema
 * (JsonValue, src/contract/json-value.ts) that does not refer to itself; anonymous
 * copies of it, and a union holding an array of itself, were what the generated types
 * could not compile (test/openapi/generated-clients.test.ts calls every route).
 */

const CALL = `import type { components, paths } from './schema.js';

type Request = paths['/v1/systemone']['post']['requestBody']['content']['application/json'];
type Answered = paths['/v1/systemone']['post']['responses']['200']['content']['application/json'];
type Refused = components['schemas']['SystemOneValidationError'];

const request: Request = {
  model: 'jev-latest',
  state: { ticket: { text: 'Charged twice', lines: [1, 2, { refund: true }] }, customer: null },
  questions: {
    team: { type: 'choice', instructions: ['Route it.'], criteria: { billing: { owns: ['refunds'] }, technical: null } },
    urgent: { type: 'noul', criteria: { true: 'today' } },
    anger: { type: 'score', criteria: ['calm', 'angry'] },
  },
};

const res = await fetch(process.argv[2] + '/v1/systemone', {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.argv[3] },
  body: JSON.stringify(request),
});
if (res.status === 422) console.log((await res.json() as Refused).detail[0]?.msg);
const answer = (await res.json()) as Answered;
const team = answer.answers['team'];
console.log(JSON.stringify({ status: res.status, model: answer.model, team: team?.type === 'choice' ? Object.keys(team.probabilities) : null }));
`;

describe('a client generated from the OpenAPI document by openapi-typescript', () => {
  let svc: Running;
  let dir: string;
  let generated: { code: number; output: string };
  beforeAll(async () => {
    svc = await startWithOpenAI();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-openapi-'));
    fs.writeFileSync(path.join(dir, 'package.json'), '{"type": "module"}');
    fs.writeFileSync(path.join(dir, 'openapi.json'), (await svc.call('GET', '/openapi.json')).text);
    generated = await run(path.join(BIN, 'openapi-typescript'), ['openapi.json', '-o', 'schema.ts'], dir);
  });
  afterAll(async () => {
    await svc?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('types any JSON value once, by name, and a call with a JSON-object state compiles and is answered', async () => {
    const doc = JSON.parse(fs.readFileSync(path.join(dir, 'openapi.json'), 'utf8'));
    expect(Object.keys(doc.components.schemas).filter((name) => name.startsWith('__'))).toEqual([]);
    expect(doc.components.schemas.JsonValue.anyOf).toContainEqual(expect.objectContaining({ type: 'object', additionalProperties: {} }));
    expect(JSON.stringify(doc.components.schemas.JsonValue)).not.toContain('$ref');

    expect(generated.code, generated.output).toBe(0);
    fs.writeFileSync(path.join(dir, 'call.ts'), CALL);
    const compiled = await compileStrict(dir, 'call.ts');
    expect(compiled.output).toBe('');
    expect(compiled.code).toBe(0);

    const { key } = await svc.newKey();
    const ran = await run(process.execPath, [path.join(dir, 'out', 'call.js'), svc.url, key], dir);
    expect(ran.code, ran.output).toBe(0);
    expect(JSON.parse(ran.output)).toEqual({ status: 200, model: 'fake-logprobs-1', team: ['billing', 'technical'] });
  });

  it('refuses to compile what the format does not allow: the types are the contract’s, not any', async () => {
    expect(generated.code, generated.output).toBe(0);
    fs.writeFileSync(
      path.join(dir, 'wrong.ts'),
      `import type { paths } from './schema.js';
type Request = paths['/v1/systemone']['post']['requestBody']['content']['application/json'];
export const noState: Request = { questions: { q: { type: 'noul' } } };
export const badType: Request = { state: 'x', questions: { q: { type: 'yesno' } } };
export const badState: Request = { state: 5, questions: { q: { type: 'noul' } } };
`,
    );
    const compiled = await compileStrict(dir, 'wrong.ts');
    expect(compiled.code).not.toBe(0);
    expect(compiled.output).toMatch(/wrong\.ts\(3,[^)]*\): error TS2741: Property 'state' is missing/);
    expect(compiled.output).toMatch(/wrong\.ts\(4,[^)]*\): error TS2322/);
    expect(compiled.output).toMatch(/wrong\.ts\(5,[^)]*\): error TS2322/);
  });

  it('describes the System One routes with their bounds and the format’s failure shapes', () => {
    const doc = JSON.parse(fs.readFileSync(path.join(dir, 'openapi.json'), 'utf8'));
    const post = doc.paths['/v1/systemone'].post;
    expect(post.operationId).toBe('systemOne');
    expect(post.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(post.responses).sort()).toEqual(
      ['200', '401', '402', '409', '413', '415', '422', '429', '502', '503', '504'].sort(),
    );
    expect(post.responses['422'].content['application/json'].schema.$ref).toBe('#/components/schemas/SystemOneValidationError');
    expect(post.responses['429'].content['application/json'].schema.$ref).toBe('#/components/schemas/SystemOneError');
    expect(doc.paths['/v1/models'].get).toMatchObject({ operationId: 'listModels', security: [{ bearer: [] }] });
    const { SystemOneRequest, SystemOneResponse, SystemOneAnswer } = doc.components.schemas;
    expect(SystemOneRequest.required).toEqual(['state', 'questions']);
    expect(SystemOneResponse.required).toEqual(['model', 'answers', 'usage']);
    expect(SystemOneAnswer.oneOf.map((a: any) => a.properties.type.const)).toEqual(['noul', 'choice', 'score']);
    expect(JSON.stringify(SystemOneRequest)).toContain('2 to 255 distinct option names');
    expect(JSON.stringify(SystemOneRequest)).toContain('2 to 10 level descriptions');
    expect(JSON.stringify(SystemOneRequest)).toContain('1 to 64 questions');
  });
});
