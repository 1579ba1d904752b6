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
 * machine (2026-11-27); docs/quality.md, "On real weights", has the held-out half's.
 * Both models are near chance on the set, so accuracy alone could not tell a broken
 * reading from a working one: the band also holds how often cutting the deciding fact
 * moves the answer (0 for a reading that ignores the facts), how sure the readings are
 * (a lost chat template moves it) and the pull of the first place.
 */

interface Band {
  /** The recorded figure and how far a run may stray from it. */
  [figure: string]: [recorded: number, within: number];
}

const RECORDED: Record<string, { file: string | null; band: Band }> = {
  'SmolLM2-135M-Instruct': {
    file: SMOLLM2,
    band: {
      accuracy: [0.25, 0.08],
      logLoss: [1.1677, 0.06],
      meanConfidence: [0.3882, 0.04],
      flipRate: [0.3889, 0.1],
      firstPlace: [0.0238, 0.02],
      yes: [0.0074, 0.05],
      sufficiencyAuroc: [0.5712, 0.1],
      decisiveFactChanged: [0.2917, 0.1],
    },
  },
  'Gemma 3 270M': {
    file: GEMMA3,
    band: {
      accuracy: [0.3333, 0.08],
      logLoss: [1.1556, 0.06],
      meanConfidence: [0.4095, 0.04],
      flipRate: [0.5, 0.1],
      firstPlace: [0.0422, 0.02],
      yes: [-0.0163, 0.05],
      sufficiencyAuroc: [0.4931, 0.1],
      decisiveFactChanged: [0.25, 0.1],
    },
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
