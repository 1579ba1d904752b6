import type { Calibration } from '../ledger/calibrations.js';
import type { Estimate, Evaluation } from '../ledger/evaluations.js';

/** Where a user reads how to measure a model, named wherever decide says it is unmeasured. */
export const HOW_TO_MEASURE = 'docs/eval.md';

/**
 * Whether the model `decide serve` answers with was measured, from what the ledger
 * holds for its engine, model and debiasing: `decide eval`'s summary (ledger/evaluations.ts),
 * else `decide calibrate`'s fits (which judge the answers on held-out readings, but
 * give no accuracy). `line` is the start line's part, `sentence` what `GET /v1/models`
 * adds to the model's description.
 */
export function describeMeasurement(
  evaluation: Evaluation | undefined,
  calibrations: readonly Calibration[],
): { line: string; sentence: string } {
  if (evaluation) {
    const day = evaluation.evaluatedAt.slice(0, 10);
    const items = `${evaluation.items} item${evaluation.items === 1 ? '' : 's'}${evaluation.half ? ` of the ${evaluation.half} half` : ''}`;
    const accuracy = evaluation.accuracy ? `accuracy ${percent(evaluation.accuracy)}, ` : '';
    const figures = [
      evaluation.accuracy && `accuracy ${percent(evaluation.accuracy)}`,
      evaluation.logLoss && `log loss ${decimal(evaluation.logLoss)}`,
      evaluation.ece && `ECE ${decimal(evaluation.ece)}`,
    ].filter(Boolean);
    return {
      line: `measured by decide eval on ${day} (${accuracy}${items}, debias ${evaluation.debias})`,
      sentence:
        `Measured by decide eval on ${day}${figures.length ? ` (95 % intervals in brackets): ${figures.join(', ')},` : ':'} ` +
        `${items} of ${evaluation.set}, debias ${evaluation.debias}${evaluation.calibrated ? ', calibrated' : ''}; ` +
        `${HOW_TO_MEASURE} says what these figures mean.`,
    };
  }
  if (calibrations.length > 0) {
    const day = calibrations
      .map((c) => c.fittedAt)
      .sort()
      .at(-1)!
      .slice(0, 10);
    return {
      line: `measured by decide calibrate on ${day}, not by decide eval (${HOW_TO_MEASURE} says how to measure it)`,
      sentence:
        `Calibrated by decide calibrate on ${day}, but not measured by decide eval: no accuracy for this model in this server's ledger; ` +
        `${HOW_TO_MEASURE} says how to measure it.`,
    };
  }
  return {
    line: `unmeasured: no decide eval figures or calibration for this model in this ledger (${HOW_TO_MEASURE} says how to measure it)`,
    sentence: `Unmeasured: no decide eval figures or calibration for this model in this server's ledger; ${HOW_TO_MEASURE} says how to measure it.`,
  };
}

/** 0.379 [0.295, 0.461] as `37.9 % [29.5, 46.1]`. */
function percent(x: Estimate): string {
  const p = (v: number) => (v * 100).toFixed(1);
  return `${p(x.value)} %${x.low !== null && x.high !== null ? ` [${p(x.low)}, ${p(x.high)}]` : ''}`;
}

function decimal(x: Estimate): string {
  const d = (v: number) => v.toFixed(3);
  return `${d(x.value)}${x.low !== null && x.high !== null ? ` [${d(x.low)}, ${d(x.high)}]` : ''}`;
}
