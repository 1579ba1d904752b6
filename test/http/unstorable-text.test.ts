import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lineOf, modernClient } from '../mcp/clients.js';
import { PgLedger } from '../ledger/postgres-helpers.js';
import { NEEDS_POSTGRES, POSTGRES } from '../support/postgres.js';
import { CHOICE, NOUL, SCORE } from '../support/requests.js';
import { type Running, startWithOpenAI, startWithOpenAIOnPostgres, type StartOptions } from '../support/service.js';
import { browserOf } from '../web/helpers.js';

/**
 * Text a ledger cannot hold, and a log entry a ledger refuses (issue 49). PostgreSQL's
 * text columns refuse U+0000: written into the decision log inside the commit, a NUL in
 * a question (or, at `metadata`, in the option that came out on top) failed the commit,
 * the reservation was given back, and the caller had a 500 after the engine had been
 * asked: unlimited free engine calls. Here, as a caller and an operator see it: the
 * answer's status, the calls the engine received, and the books (GET /v1/usage).
 */

const NUL = '\u0000';
const REFUSED = 'must not contain the NUL character (U+0000)';

/** The service on either ledger, as these tests use it. */
type Svc = Pick<Running, 'call' | 'url' | 'fake' | 'newKey' | 'dbPath' | 'close'>;
const usage = async (svc: Svc, key: string) => (await svc.call('GET', '/v1/usage', { key })).body;

for (const level of ['full', 'metadata'] as const) {
  describe.skipIf(!POSTGRES)(`a NUL in a request, on PostgreSQL with the decision log at ${level} ${NEEDS_POSTGRES}`, () => {
    let ledger: PgLedger;
    let svc: Svc;
    beforeAll(async () => {
      ledger = new PgLedger();
      svc = await startWithOpenAIOnPostgres(ledger.url, { decisionLog: level });
    });
    afterAll(async () => {
      await svc.close();
      await ledger.dispose();
    });
    afterEach(() => svc.fake.reset());

    it('20 standard decisions on a fresh key: each refused by name before the engine, no free unit used', async () => {
      const { key } = await svc.newKey();
      const statuses: number[] = [];
      for (let n = 1; n <= 20; n++) {
        const res = await svc.call('POST', '/v1/decisions', { key, json: { ...NOUL, question: `Which${NUL} one ${n}?` } });
        statuses.push(res.status);
        if (res.status === 400) expect(res.body.error).toBe(`question: ${REFUSED}`);
      }
      expect(statuses).toEqual(Array(20).fill(400));
      expect(svc.fake.requests).toHaveLength(0);
      expect(await usage(svc, key)).toMatchObject({ freeUsed: 0, freeRemaining: 20 });
      // The key and the ledger are sound: a clean decision is served, charged, and logged.
      expect((await svc.call('POST', '/v1/decisions', { key, json: NOUL })).status).toBe(200);
      expect(await usage(svc, key)).toMatchObject({ freeUsed: 1, freeRemaining: 19 });
      expect(await ledger.rows('SELECT mode FROM decisions')).toEqual([{ mode: 'noul' }]);
    });

    it('a NUL in the context, an option, or a level: the field named, nothing asked, nothing taken from the pass', async () => {
      const { key } = await svc.newKey(10);
      // Every option and level holds one, so whichever came out on top would carry it into the log.
      const cases: Array<[object, string]> = [
        [{ ...CHOICE, context: `${CHOICE.context}${NUL}` }, 'context'],
        [{ ...CHOICE, options: [`Postgre${NUL}SQL`, `Mongo${NUL}DB`] }, 'options.0'],
        [{ ...SCORE, levels: [`low${NUL}`, `medium${NUL}`, `high${NUL}`] }, 'levels.0'],
        [{ ...CHOICE, question: `${NUL}${CHOICE.question}`, depth: 'stress' }, 'question'],
      ];
      for (const [json, field] of cases) {
        const res = await svc.call('POST', '/v1/decisions', { key, json });
        expect([res.status, res.body.code, res.body.issues?.[0]]).toEqual([400, 'invalid_request', { field, message: REFUSED }]);
      }
      expect(svc.fake.requests).toHaveLength(0);
      expect(await usage(svc, key)).toMatchObject({ freeUsed: 0, passCredits: 10 });
    });

    it('through the MCP tool server: a tool error naming the field, nothing asked, nothing used', async () => {
      const { key } = await svc.newKey(10);
      const client = await modernClient(svc.url, key);
      try {
        for (const [name, args] of [
          ['weigh_decision', { ...CHOICE, options: ['PostgreSQL', `Mongo${NUL}DB`] }],
          ['stress_test_decision', { ...NOUL, question: `Ship${NUL} it on Friday?` }],
        ] as const) {
          const result = await client.callTool({ name, arguments: args });
          expect(result.isError).toBe(true);
          expect(lineOf(result)).toContain(REFUSED);
        }
      } finally {
        await client.close();
      }
      expect(svc.fake.requests).toHaveLength(0);
      expect(await usage(svc, key)).toMatchObject({ freeUsed: 0, passCredits: 10 });
    });

    it('through the pass page: 400 naming the field, nothing asked, no free unit used', async () => {
      const browser = browserOf(svc);
      const { id: keyId, key } = await browser.newKey();
      const res = await browser.call('POST', '/v1/web/decisions', { json: { ...SCORE, levels: ['low', `mid${NUL}dle`, 'high'], keyId } });
      expect([res.status, res.body.issues?.[0]]).toEqual([400, { field: 'levels.1', message: REFUSED }]);
      expect(svc.fake.requests).toHaveLength(0);
      expect(await usage(svc, key)).toMatchObject({ freeUsed: 0 });
    });

    it('through System One: 422 locating it in the state, an id, an option name, a description or the instructions', async () => {
      const { key } = await svc.newKey();
      const state = 'The invoice was paid twice.';
      const cases: Array<[object, (string | number)[]]> = [
        [{ state: `paid${NUL}`, questions: { q: { type: 'noul' } } }, ['state']],
        [{ state: { facts: ['paid', `twice${NUL}`] }, questions: { q: { type: 'noul' } } }, ['state', 'facts', 1]],
        [{ state: { [`fa${NUL}cts`]: 'paid' }, questions: { q: { type: 'noul' } } }, ['state', `fa${NUL}cts`]],
        [{ state, questions: { [`q${NUL}`]: { type: 'noul' } } }, ['questions', `q${NUL}`]],
        [
          { state, questions: { q: { type: 'choice', criteria: { Refund: null, [`Wa${NUL}it`]: null } } } },
          ['questions', 'q', 'criteria', `Wa${NUL}it`],
        ],
        [{ state, questions: { q: { type: 'score', criteria: ['low', `high${NUL}`] } } }, ['questions', 'q', 'criteria', 1]],
        [{ state, questions: { q: { type: 'noul', instructions: `Say${NUL}` } } }, ['questions', 'q', 'instructions']],
        [{ state, questions: { q: { type: 'noul', criteria: { true: `paid${NUL}` } } } }, ['questions', 'q', 'criteria', 'true']],
        [{ model: `jev${NUL}`, state, questions: { q: { type: 'noul' } } }, ['model']],
      ];
      for (const [json, loc] of cases) {
        const res = await svc.call('POST', '/v1/systemone', { key, json });
        expect([res.status, res.body.detail]).toEqual([422, [{ loc: ['body', ...loc], msg: REFUSED, type: 'value_error' }]]);
      }
      expect(svc.fake.requests).toHaveLength(0);
      expect(await usage(svc, key)).toMatchObject({ freeUsed: 0 });
    });
  });
}

/**
 * The other half: a log entry the ledger refuses, whatever the reason (none the contract
 * lets through is known once NUL is refused, so the operator's own constraint stands in
 * for one), leaves the decision served and charged. The operator is told, without the
 * key or the text asked.
 */
const ledgers: Array<{
  name: string;
  skip: boolean;
  start(options: StartOptions): Promise<{ svc: Svc; refuseEntries(): Promise<void>; entries(): Promise<number>; close(): Promise<void> }>;
}> = [
  {
    name: 'SQLite',
    skip: false,
    async start(options) {
      const svc = await startWithOpenAI(options);
      const onFile = <T>(work: (db: Database.Database) => T): T => {
        const db = new Database(svc.dbPath);
        try {
          return work(db);
        } finally {
          db.close();
        }
      };
      return {
        svc,
        refuseEntries: async () => {
          onFile((db) => db.exec(`CREATE TRIGGER refuse_entries BEFORE INSERT ON decisions BEGIN SELECT RAISE(ABORT, 'refused'); END`));
        },
        entries: async () => onFile((db) => (db.prepare('SELECT count(*) AS n FROM decisions').get() as { n: number }).n),
        close: () => svc.close(),
      };
    },
  },
  {
    name: 'PostgreSQL',
    skip: !POSTGRES,
    async start(options) {
      const ledger = new PgLedger();
      const svc = await startWithOpenAIOnPostgres(ledger.url, options);
      return {
        svc,
        // NOT VALID: the rows already there are not checked, every new one is refused.
        refuseEntries: () => ledger.exec('ALTER TABLE decisions ADD CONSTRAINT refuse_entries CHECK (false) NOT VALID'),
        entries: async () => (await ledger.rows<{ n: number }>('SELECT CAST(count(*) AS INTEGER) AS n FROM decisions'))[0].n,
        close: async () => {
          await svc.close();
          await ledger.dispose();
        },
      };
    },
  },
];

for (const l of ledgers) {
  describe.skipIf(l.skip)(`${l.name}: a log entry the ledger refuses ${l.name === 'PostgreSQL' ? NEEDS_POSTGRES : ''}`, () => {
    const warnings: string[] = [];
    let run: Awaited<ReturnType<(typeof l)['start']>>;
    beforeAll(async () => {
      run = await l.start({ decisionLog: 'full', warn: (line) => warnings.push(line) });
      await run.refuseEntries();
    });
    afterAll(() => run.close());

    it('the decision is still served and charged, free unit or credits, and the operator told', async () => {
      const { svc } = run;
      const { key, keyHint } = await svc.newKey(10);
      const free = await svc.call('POST', '/v1/decisions', { key, json: CHOICE });
      expect(free.status).toBe(200);
      const paid = await svc.call('POST', '/v1/decisions', { key, json: { ...NOUL, depth: 'stress' } });
      expect(paid.status).toBe(200);
      expect(svc.fake.requests.length).toBeGreaterThan(2);
      expect(await usage(svc, key)).toMatchObject({ freeUsed: 1, passCredits: 5 });
      expect(await run.entries()).toBe(0);

      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toMatch(new RegExp(`^the decision log did not keep a decision \\(api, choice, key ${keyHint}\\): .+`));
      expect(warnings[0]).toContain('served and charged');
      const said = warnings.join('\n');
      expect(said).not.toContain(key);
      expect(said).not.toContain(CHOICE.question);
      expect(said).not.toContain(NOUL.question);
    });
  });
}

describe.skipIf(!POSTGRES)(`a NUL in a pass id, on the operator API over PostgreSQL ${NEEDS_POSTGRES}`, () => {
  const TOKEN = 'admin-token-for-the-nul-pass-ids-0123456789';
  let ledger: PgLedger;
  let svc: Awaited<ReturnType<typeof startWithOpenAIOnPostgres>>;
  beforeAll(async () => {
    ledger = new PgLedger();
    svc = await startWithOpenAIOnPostgres(ledger.url, { adminToken: TOKEN });
  });
  afterAll(async () => {
    await svc.close();
    await ledger.dispose();
  });

  it('is no pass: 404 "no pass", never a 500, wherever a pass is named', async () => {
    const headers = { authorization: `Bearer ${TOKEN}` };
    const answers = [
      await svc.call('POST', '/v1/admin/keys', { headers, json: { passId: `pass${NUL}x` } }),
      await svc.call('GET', '/v1/admin/passes/pass%00x', { headers }),
      await svc.call('GET', '/v1/admin/keys?pass=pass%00x', { headers }),
    ];
    for (const res of answers) {
      expect(res.status, res.text).toBe(404);
      expect(res.body.error).toMatch(/^no pass pass/);
    }
    expect((await ledger.rows('SELECT id FROM keys')).length).toBe(0);
  });
});
