import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/ledger/open.js';
import type { Calibration, Evaluation, Store } from '../../src/ledger/store.js';
import { PgLedger } from '../ledger/postgres-helpers.js';
import { call } from '../support/api.js';
import { openaiEnv, runJson, startServe, useServeFixture } from '../support/cli.js';
import { NEEDS_POSTGRES, POSTGRES } from '../support/postgres.js';
import { scaled } from '../support/time.js';

/**
 * Whether the model `decide serve` answers with was measured, as a user reads it: on
 * the start line and in `GET /v1/models`, from what the ledger holds for its engine,
 * model and debiasing (the openai engine on its fake: model `m`, debias none).
 */

const LIMITS = { freePerKey: 20, freePerIp: 0, freePerSite: 0 };
const UNMEASURED_LINE =
  ', unmeasured: no decide eval figures or calibration for this model in this ledger (docs/eval.md says how to measure it), database ';
const UNMEASURED_SENTENCE =
  "Unmeasured: no decide eval figures or calibration for this model in this server's ledger; docs/eval.md says how to measure it.";

const evaluation = (of: Partial<Evaluation> = {}): Evaluation => ({
  engine: 'openai',
  model: 'm',
  debias: 'none',
  set: 'eval/decisions.jsonl',
  half: null,
  items: 262,
  measured: 260,
  calibrated: false,
  accuracy: { value: 0.379, low: 0.295, high: 0.461 },
  logLoss: { value: 1.0412, low: 0.9876, high: 1.1023 },
  ece: { value: 0.0816, low: 0.052, high: 0.1234 },
  evaluatedAt: '2026-12-01T09:30:00.000Z',
  ...of,
});

const calibration = (of: Partial<Calibration> = {}): Calibration => ({
  engine: 'openai',
  model: 'm',
  debias: 'none',
  target: 'choice',
  temperature: 1.5,
  offsets: null,
  fitted: 100,
  heldOut: 90,
  eceBefore: 0.2,
  eceAfter: 0.05,
  fittedAt: '2026-11-28T12:00:00.000Z',
  ...of,
});

describe('decide serve says whether the model it answers with was measured', () => {
  const fixture = useServeFixture();
  const ledgers: PgLedger[] = [];
  afterEach(async () => {
    for (const ledger of ledgers.splice(0)) await ledger.dispose();
  });

  const withLedger = async (db: string, work: (store: Store) => Promise<void>) => {
    const store = await openStore(db, LIMITS);
    try {
      await work(store);
    } finally {
      await store.close();
    }
  };

  /** Starts serve on `db`, and returns its start line and the description /v1/models gives of the model. */
  const started = async (db: string) => {
    const { key } = await runJson(['key', 'create', '--create', '--db', db]);
    const server = await startServe(['--db', db], openaiEnv(fixture.fake.url, 'sk-measured'), scaled(20_000));
    const line = await server.waitForStderr(/^decide: engine /);
    const models = await call(server.url, 'GET', '/v1/models', { key });
    expect(models.status, models.text).toBe(200);
    expect(models.body.models).toHaveLength(1);
    await server.stop();
    return { line, description: models.body.models[0].description as string };
  };

  it('on a fresh ledger, and one holding figures of other models or debiasings only: unmeasured, and where to read how to measure it', async () => {
    const fresh = await started(fixture.tmp.db);
    expect(fresh.line).toMatch(/^decide: engine openai \(model m, debias none, calibration none\) at \S+, unmeasured: /);
    expect(fresh.line).toContain(UNMEASURED_LINE);
    expect(fresh.description).toMatch(/^m, answered by decide's openai engine: .* each paid as one standard decision\. Unmeasured: /);
    expect(fresh.description.endsWith(UNMEASURED_SENTENCE)).toBe(true);

    const other = fixture.tempDb();
    await withLedger(other.db, async (store) => {
      await store.evaluations.save(evaluation({ model: 'another-model' }));
      await store.evaluations.save(evaluation({ debias: 'reverse' }));
      await store.evaluations.save(evaluation({ engine: 'anthropic' }));
      await store.calibrations.save(calibration({ debias: 'cyclic' }));
    });
    const elsewhere = await started(other.db);
    expect(elsewhere.line).toContain(UNMEASURED_LINE);
    expect(elsewhere.description.endsWith(UNMEASURED_SENTENCE)).toBe(true);
  });

  it('with decide eval figures of this engine, model and debiasing: measured, when, its accuracy with its interval and the items', async () => {
    await withLedger(fixture.tmp.db, async (store) => {
      await store.evaluations.save(evaluation());
      await store.calibrations.save(calibration());
    });
    const { line, description } = await started(fixture.tmp.db);
    expect(line).toMatch(
      /^decide: engine openai \(model m, debias none, calibration choice 1\.50\) at \S+, measured by decide eval on 2026-12-01 \(accuracy 37\.9 % \[29\.5, 46\.1\], 262 items, debias none\), database /,
    );
    expect(line).not.toContain('unmeasured');
    expect(description).toContain(
      'each paid as one standard decision. Measured by decide eval on 2026-12-01 (95 % intervals in brackets): ' +
        'accuracy 37.9 % [29.5, 46.1], log loss 1.041 [0.988, 1.102], ECE 0.082 [0.052, 0.123], 262 items of eval/decisions.jsonl, ' +
        'debias none; docs/eval.md says what these figures mean.',
    );
    expect(description).not.toMatch(/unmeasured/i);
  });

  it('with a calibration but no decide eval figures: measured by decide calibrate, not by decide eval', async () => {
    await withLedger(fixture.tmp.db, (store) => store.calibrations.save(calibration()));
    const { line, description } = await started(fixture.tmp.db);
    expect(line).toMatch(
      /\(model m, debias none, calibration choice 1\.50\) at \S+, measured by decide calibrate on 2026-11-28, not by decide eval \(docs\/eval\.md says how to measure it\), database /,
    );
    expect(description).toContain(
      "Calibrated by decide calibrate on 2026-11-28, but not measured by decide eval: no accuracy for this model in this server's ledger; docs/eval.md says how to measure it.",
    );
  });

  it.skipIf(!POSTGRES)(`on PostgreSQL too: unmeasured on a new ledger, measured once it holds figures ${NEEDS_POSTGRES}`, async () => {
    const ledger = new PgLedger();
    ledgers.push(ledger);
    expect((await started(ledger.url)).line).toContain(UNMEASURED_LINE);
    await withLedger(ledger.url, (store) => store.evaluations.save(evaluation({ half: 'odd', items: 131, measured: 131 })));
    const { line, description } = await started(ledger.url);
    expect(line).toContain(
      ', measured by decide eval on 2026-12-01 (accuracy 37.9 % [29.5, 46.1], 131 items of the odd half, debias none), database ',
    );
    expect(description).toContain('Measured by decide eval on 2026-12-01');
  });
});
