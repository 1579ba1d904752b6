import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { NEEDS_OPENAPI_PYTHON_CLIENT, OPENAPI_PYTHON_CLIENT } from '../support/python-tools.js';
import { startWithOpenAI, type Running } from '../support/service.js';
import { scaled } from '../support/time.js';
import { BIN, compileStrict, run } from '../support/typescript.js';

/**
 * What a user of the OpenAPI document does with the two usual generators, run with
 * their default options on the document the server serves: openapi-typescript (types,
 * called through openapi-fetch, compiled strictly) and openapi-python-client (a
 * package of models and one module per operation). Each client must hold every route
 * of the document, and one call of each, made through it against the server, must get
 * the status the route documents, its body parsed as the route's documented model.
 *
 * What they once dropped or mistyped: POST /v1/systemone (openapi-python-client could
 * not parse the self-referencing JsonValue), the decision results and System One
 * answers (objects inside union members, built twice: "duplicate models"), and
 * `depth` typed as required in requests (a `default` in a component schema).
 */

const ADMIN_TOKEN = 'admin-token-of-the-generated-clients-test-0123';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Operation {
  route: string;
  operationId: string;
  /** The 2xx statuses the route documents, and the schema each answers with. */
  success: Record<string, string>;
}

/** Every operation of the document: "METHOD /path", its id, its documented successes. */
function operationsOf(doc: any): Operation[] {
  return Object.entries<any>(doc.paths)
    .flatMap(([route, item]) =>
      Object.entries<any>(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => ({
          route: `${method.toUpperCase()} ${route}`,
          operationId: operation.operationId as string,
          success: Object.fromEntries(
            Object.entries<any>(operation.responses)
              .filter(([status]) => status.startsWith('2'))
              .map(([status, response]) => [status, response.content['application/json'].schema.$ref.split('/').pop()]),
          ),
        })),
    )
    .sort((a, b) => a.route.localeCompare(b.route));
}

/** The server, with the operator API on, and the document it serves written into a fresh folder. */
async function serving(): Promise<{ svc: Running; dir: string; doc: any; done(): Promise<void> }> {
  const svc = await startWithOpenAI({ adminToken: ADMIN_TOKEN });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decide-generated-'));
  const text = (await svc.call('GET', '/openapi.json')).text;
  fs.writeFileSync(path.join(dir, 'openapi.json'), text);
  return {
    svc,
    dir,
    doc: JSON.parse(text),
    async done() {
      await svc.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One call of every route through openapi-fetch and the generated `paths`, as a user
 * writes it: a decision without `depth` (the server's default) must compile. `Route` is
 * every "METHOD /path" the generated types hold; a call of a route they lack does not compile.
 */
const TS_CALLS = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

type Method = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
type Route = {
  [P in keyof paths]: { [M in Method]: [NonNullable<paths[P][M]>] extends [never] ? never : \`\${Uppercase<M>} \${P & string}\` }[Method];
}[keyof paths];

const [base, adminToken] = process.argv.slice(2) as [string, string];
const calls: Partial<Record<Route, number>> = {};

/** Keeps the status a route answered; its documented body, or a throw. */
function ok<D>(route: Route, answer: { data?: D; error?: unknown; response: Response }): D {
  calls[route] = answer.response.status;
  if (answer.data === undefined) throw new Error(route + ' answered ' + answer.response.status + ': ' + JSON.stringify(answer.error));
  return answer.data;
}

const CONTEXT = 'The invoice was paid twice and the customer asked for a refund.';
const anyone = createClient<paths>({ baseUrl: base });
const admin = createClient<paths>({ baseUrl: base, headers: { authorization: 'Bearer ' + adminToken } });

ok('GET /healthz', await anyone.GET('/healthz'));
ok('GET /readyz', await anyone.GET('/readyz'));
ok('GET /v1/metrics', await anyone.GET('/v1/metrics'));

const pass = ok('POST /v1/admin/passes', await admin.POST('/v1/admin/passes'));
ok('GET /v1/admin/passes', await admin.GET('/v1/admin/passes'));
ok('GET /v1/admin/passes/{id}', await admin.GET('/v1/admin/passes/{id}', { params: { path: { id: pass.passId } } }));
const adminKey = ok('POST /v1/admin/keys', await admin.POST('/v1/admin/keys', { body: { passId: pass.passId, name: 'typescript' } }));
ok('GET /v1/admin/keys', await admin.GET('/v1/admin/keys', { params: { query: { pass: pass.passId } } }));

const api = createClient<paths>({ baseUrl: base, headers: { authorization: 'Bearer ' + adminKey.key } });
ok('GET /v1/usage', await api.GET('/v1/usage'));
const decision = ok(
  'POST /v1/decisions',
  await api.POST('/v1/decisions', { body: { mode: 'noul', question: 'Should we refund it?', context: CONTEXT } }),
);
const systemOne = ok(
  'POST /v1/systemone',
  await api.POST('/v1/systemone', {
    body: {
      model: 'jev-latest',
      state: { ticket: { text: 'Charged twice', lines: [1, 2, { refund: true }] }, customer: null },
      questions: {
        team: { type: 'choice', criteria: { billing: { owns: ['refunds'] }, technical: null } },
        anger: { type: 'score', criteria: ['calm', 'angry'] },
      },
    },
  }),
);
ok('GET /v1/models', await api.GET('/v1/models'));

// A browser: its own page's Origin, and the pass cookie POST /v1/pass sets.
const visitor = createClient<paths>({ baseUrl: base, headers: { origin: base } });
const verified = await visitor.POST('/v1/pass', { body: {} });
ok('POST /v1/pass', verified);
const cookie = (verified.response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
const browser = createClient<paths>({ baseUrl: base, headers: { origin: base, cookie } });
ok('GET /v1/pass', await browser.GET('/v1/pass'));
const webKey = ok('POST /v1/keys', await browser.POST('/v1/keys'));
const keyPath = { params: { path: { id: webKey.id } } };
ok('PATCH /v1/keys/{id}', await browser.PATCH('/v1/keys/{id}', { ...keyPath, body: { name: 'laptop' } }));
ok(
  'POST /v1/web/decisions',
  await browser.POST('/v1/web/decisions', { body: { mode: 'noul', question: 'Should we refund it?', context: CONTEXT, keyId: webKey.id } }),
);
ok('DELETE /v1/keys/{id}', await browser.DELETE('/v1/keys/{id}', keyPath));

ok('DELETE /v1/key', await api.DELETE('/v1/key'));
ok('DELETE /v1/admin/keys/{ref}', await admin.DELETE('/v1/admin/keys/{ref}', { params: { path: { ref: adminKey.id } } }));

const team = systemOne.answers['team'];
const anger = systemOne.answers['anger'];
console.log(
  JSON.stringify({
    calls,
    decision: { mode: decision.mode, yes: decision.mode === 'noul' ? decision.result.yesProbability : null },
    systemOne: {
      model: systemOne.model,
      team: team?.type === 'choice' ? Object.keys(team.probabilities) : null,
      legend: anger?.type === 'score' ? anger.legend : null,
    },
  }),
);
`;

/** What both clients must have seen of the server's answers (the fake engine's). */
function expectAnswers(seen: { decision: unknown; systemOne: unknown }) {
  expect(seen.decision).toEqual({ mode: 'noul', yes: expect.any(Number) });
  expect(seen.systemOne).toEqual({
    model: 'fake-logprobs-1',
    team: ['billing', 'technical'],
    legend: { '0': 'calm', '1': 'angry' },
  });
}

describe('clients generated from the OpenAPI document, with default options, call every route', () => {
  it(
    'openapi-typescript: a strict compile of one openapi-fetch call of every route, a decision without depth among them, and each answered as documented',
    async () => {
      const { dir, svc, doc, done } = await serving();
      try {
        fs.writeFileSync(path.join(dir, 'package.json'), '{"type": "module"}');
        // The caller resolves openapi-fetch (and the compiler its types) from the project.
        fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
        const generated = await run(path.join(BIN, 'openapi-typescript'), ['openapi.json', '-o', 'schema.ts'], dir);
        expect(generated.code, generated.stdout + generated.stderr).toBe(0);
        expect(generated.stdout + generated.stderr).not.toMatch(/warn|error/i);

        fs.writeFileSync(path.join(dir, 'calls.ts'), TS_CALLS);
        const compiled = await compileStrict(dir, 'calls.ts');
        expect(compiled.stdout + compiled.stderr).toBe('');
        expect(compiled.code).toBe(0);

        const ran = await run(process.execPath, [path.join(dir, 'out', 'calls.js'), svc.url, ADMIN_TOKEN], dir);
        expect(ran.code, ran.stderr).toBe(0);
        const seen = JSON.parse(ran.stdout);

        const operations = operationsOf(doc);
        expect(Object.keys(seen.calls).sort()).toEqual(operations.map((o) => o.route));
        for (const { route, success } of operations) {
          expect(Object.keys(success), route).toContain(String(seen.calls[route]));
        }
        expectAnswers(seen);
      } finally {
        await done();
      }
    },
    scaled(180_000),
  );

  describe.skipIf(!OPENAPI_PYTHON_CLIENT)(`openapi-python-client ${NEEDS_OPENAPI_PYTHON_CLIENT}`, () => {
    it(
      'generates every operation without a warning, and one call of each is answered and parsed as the route documents',
      async () => {
        const tools = OPENAPI_PYTHON_CLIENT!;
        const { dir, svc, doc, done } = await serving();
        try {
          // The environment's bin first: the generator formats what it writes with its ruff.
          const env = { ...process.env, PATH: `${path.dirname(tools.generator)}${path.delimiter}${process.env.PATH ?? ''}` };
          const generated = await run(tools.generator, ['generate', '--path', 'openapi.json', '--output-path', 'client'], dir, env);
          expect(generated.code, generated.stdout + generated.stderr).toBe(0);
          // It says "Generating <folder>" and nothing else: any warning means a part was dropped.
          expect((generated.stdout + generated.stderr).trim()).toBe('Generating client');

          const out = path.join(dir, 'client');
          const [pkg] = fs.readdirSync(out).filter((name) => fs.existsSync(path.join(out, name, '__init__.py')));
          const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'generated_client_calls.py');
          const ran = await run(tools.python, [script, out, pkg!, svc.url, ADMIN_TOKEN], dir);
          expect(ran.code, ran.stderr).toBe(0);
          const seen = JSON.parse(ran.stdout);

          // One module per operation, named after its operationId, and each called once.
          const operations = operationsOf(doc);
          const module = (operationId: string) => operationId.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
          const modules = operations.map((o) => module(o.operationId)).sort();
          expect(seen.operations).toEqual(modules);
          expect(Object.keys(seen.calls).sort()).toEqual(modules);
          const schemas = doc.components.schemas;
          for (const { route, operationId, success } of operations) {
            const call = seen.calls[module(operationId)];
            expect(Object.keys(success), route).toContain(String(call.status));
            // The class the route's schema names, or one of its members' (a union of named schemas).
            const schema = success[String(call.status)]!;
            const members = (schemas[schema].oneOf ?? schemas[schema].anyOf ?? []).map((m: any) => m.$ref?.split('/').pop());
            expect(members.length && members.every(Boolean) ? members : [schema], route).toContain(call.parsed);
          }
          expect(seen.system_one.answers).toEqual({ team: 'SystemOneAnswerType1', anger: 'SystemOneAnswerType2' });
          const { model, team, legend } = seen.system_one;
          expectAnswers({ decision: seen.decision, systemOne: { model, team, legend } });
        } finally {
          await done();
        }
      },
      scaled(240_000),
    );
  });
});
