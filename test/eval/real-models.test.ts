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
 * The recorded figures are the middle of what the same command read on two 2-core
 * development machines (2026-11-27), one of them an AVX2-only AMD EPYC. llama.cpp picks
 * its CPU kernels by instruction set, so the same code and weights read a little
 * differently on each, and on models this near chance that is enough to move the
 * figures counted over near-ties. Averages move little between the two: log loss 0.013
 * and 0.015, mean confidence 0.002 and 0.011, the first place's pull 0.001 and 0.004,
 * so their bands stay narrow. Counts over near-ties move much more: accuracy 0.083
 * (2 of 24 answers), flips 0.014 and 0.153, answers moving without their fact 0.125
 * and 0.042, and the sufficiency AUROC 0.095, besides 0.54 to 0.65 between runs on one
 * machine, since the probe's readings are nearly all alike. A third machine (an
 * Intel Xeon with AVX-512, 2026-11-28) read Gemma 3's answers moving without their
 * fact on 0.4167 of items against 0.2292 (10 of 24 rather than 5 or 6), and SmolLM2's
 * sufficiency AUROC as 0.40 in one of three runs: a probe whose readings are nearly all
 * alike ranks contexts by digits that move with the batch, so that band is wide. The bands are wide enough
 * for the three machines and still leave out a broken reading.
 *
 * Since a choice's options are shown sorted (2026-11-28), reordering a choice cannot
 * flip it, which moved the flip rate, the first place's pull and Gemma 3's log loss. A
 * fourth machine (an AMD EPYC with AVX-512) read the sample with the code before and
 * after that change; each of those bands moved by what it read changing (Gemma 3: flips
 * 0.4444 → 0.2778, first place 0.0416 → 0.0114, log loss 1.1601 → 1.2058; SmolLM2 read
 * 0.1806 and 0.0113 after, in band before), and Gemma 3's accuracy band moved to take in
 * that machine's 0.2083 before (0.25 after).
 * Since 2026-12-02 the local engine reads each request alone, from an empty sequence,
 * so a run reads the same every time on one machine; the near-ties that batching used
 * to tip moved with it, and Gemma 3's accuracy read 0.4167 (10 of 24), its band widened
 * to take it in (every other figure stayed in its band).
 * docs/quality.md, "On real weights", has the held-out half's figures. Both models are
 * near chance on the set, so accuracy alone could not tell a broken reading from a
 * working one. The band also holds:
 * - how often cutting the deciding fact moves the answer (0 for a reading that ignores
 *   the facts);
 * - how sure the readings are (a lost chat template moves it);
 * - the pull of the first place;
 * - how many complete contexts come back `needs-context` (2026-11-28: a probe read in
 *   both orders is read as its surer yes, which sends back 1 and 3 of 24 here where
 *   their mean, a coin flip on a model that follows the place it is shown, sent back
 *   about half).
 */

interface Band {
  /** The recorded figure and how far a run may stray from it. */
  [figure: string]: [recorded: number, within: number];
}

const RECORDED: Record<string, { file: string | null; band: Band }> = {
  'SmolLM2-135M-Instruct': {
    file: SMOLLM2,
    band: {
      accuracy: [0.2083, 0.12],
      logLoss: [1.174, 0.05],
      meanConfidence: [0.3872, 0.04],
      // Choices are shown sorted: their reorderings no longer flip, only levels and No-first do.
      flipRate: [0.19, 0.12],
      // Shown sorted, a reordered choice is the same prompt, and one request reads the same every time.
      choiceFlipRate: [0, 0],
      firstPlace: [0.012, 0.02],
      yes: [0.008, 0.05],
      // 0.59 between the first two machines; 0.40 in one run on the third, in band in two others.
      sufficiencyAuroc: [0.52, 0.23],
      decisiveFactChanged: [0.3542, 0.15],
      // 1 of 24; averaging the probe's two orders sent back about half.
      completeNeedsContext: [0.04, 0.12],
    },
  },
  'Gemma 3 270M': {
    file: GEMMA3,
    band: {
      // 0.3333 on the first two machines, 0.2083 on the fourth (before choices were shown sorted);
      // 0.4167 (10 of 24) once each request was read alone from an empty sequence (2026-12-02).
      accuracy: [0.31, 0.13],
      logLoss: [1.209, 0.05],
      meanConfidence: [0.4152, 0.04],
      flipRate: [0.27, 0.15],
      choiceFlipRate: [0, 0],
      firstPlace: [0.0103, 0.02],
      yes: [-0.0248, 0.05],
      // 0.4458 between the first two machines, 0.5634 on the third; 0.54 to 0.65 run to run.
      sufficiencyAuroc: [0.5, 0.2],
      // 0.2292 between the first two machines, 0.4167 on the third: counted over 24 near-ties.
      decisiveFactChanged: [0.3229, 0.2],
      // 3 of 24 (0.05 and 0.07 of the set's halves); averaging the probe's two orders sent back about half.
      completeNeedsContext: [0.125, 0.125],
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
        expect(
          measured[figure],
          `${figure}: ${measured[figure]} (recorded ${recorded} ± ${within}); all: ${JSON.stringify(measured)}`,
        ).toBeGreaterThanOrEqual(recorded - within);
        expect(
          measured[figure],
          `${figure}: ${measured[figure]} (recorded ${recorded} ± ${within}); all: ${JSON.stringify(measured)}`,
        ).toBeLessThanOrEqual(recorded + within);
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
    choiceFlipRate: report.positionBias.complete.modes.choice.flipRate,
    firstPlace: report.positionBias.places.first.bias,
    yes: report.positionBias.yes.bias,
    sufficiencyAuroc: report.sufficiency.auroc,
    decisiveFactChanged: report.decisiveFact.changedRate,
    completeNeedsContext: report.sufficiency.sufficient.needsContextRate,
  };
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v === null ? NaN : Math.round(v * 10_000) / 10_000]));
}
