import type { DecisionResult, Signal, Stress } from '../contract/answer.js';
import type { DecisionRequest } from '../contract/decision.js';
import type { AskContext, Engine, EngineReply, Questions } from '../engine/engine.js';
import { mapBounded } from './bounded.js';
import { contextWithout, type Fact, splitFacts } from './facts.js';
import { type Reading, round4, signalOf, type Weighed, weigh } from './outcome.js';
import { calibrated, calibratedSufficiency, type Scalings } from './scaling.js';
import {
  mainQuestions,
  ordersFor,
  readAveraged,
  readingName,
  readSufficiency,
  reversedReading,
  smallestLabelMass,
  sufficiencyQuestions,
} from './debias.js';
import { type Order, reversedOf, shownOrder } from './orders.js';
import { MAIN, mainQuestion, readMain, REVERSED } from './questions.js';
import { stressOf } from './stress.js';
import type { Debias } from '../contract/debias.js';

export interface DecisionOutcome {
  result: DecisionResult;
  signal: Signal;
  contextSufficiency: number;
  /** The smallest share of the next-token probability the main readings put on their labels; null when the engine does not say. */
  labelMass: number | null;
  inputTokens: number;
  stress: Stress | null;
  model: string;
  /**
   * The main answer before rounding, in request order (noul: [yes, no]): what an
   * evaluation compares, so that a tie is a tie and not two values a step apart.
   */
  distribution: number[];
}

export const DEFAULT_CONCURRENCY = 16;

/** One engine call, read as soon as it answers so an unusable answer stops the rest. */
type Asked =
  | {
      kind: 'base';
      inputTokens: number;
      main: Weighed;
      distribution: number[];
      contextSufficiency: number;
      labelMass: number | null;
      reversed: Weighed | null;
    }
  | { kind: 'without-fact'; inputTokens: number; main: Weighed; fact: Fact };

interface Call {
  state: string;
  questions: Questions;
  read: (answers: EngineReply['answers'], inputTokens: number) => Asked;
}

/**
 * Decides one parsed request (trimmed, depth defaulted). Standard depth is one engine
 * call; stress adds one call per fact, all run together under `concurrency`, so the
 * decision takes about one engine round (or all handed over at once to an engine
 * that shares work between them, `askAll`). With `debias` (debias.ts) every call asks
 * its main question in each order as questions of the same call, and the answer is
 * their average; a stress decision's reversed check is then the reversed reading
 * itself, not a question of its own. Engine errors propagate unchanged; the first
 * failure of any call aborts the others and fails the whole decision.
 */
export async function runDecision(
  request: DecisionRequest,
  engine: Engine,
  options: {
    signal: AbortSignal;
    concurrency?: number;
    debias?: Debias;
    scalings?: Scalings;
    /**
     * The answers shown in this order before any debiasing reorders them, instead of
     * the shown order (orders.ts): how an evaluation asks a yes/no question with No
     * first, which a request cannot say.
     */
    presentation?: Order;
    /** What the engine may pass on about the request it serves (its id). */
    call?: AskContext;
  },
): Promise<DecisionOutcome> {
  const stress = request.depth === 'stress';
  const debias = options.debias ?? 'none';
  // Every reading of the decision is calibrated alike, so the checks compare like with like.
  const calibrate = (reading: Reading) => calibrated(reading, options.scalings ?? {});
  const fit = (reading: Reading) => weigh(calibrate(reading));
  const orders = ordersFor(options.presentation ?? shownOrder(mainQuestion(request)), debias);
  // The reversed check reads the first order last to first: one of the debiased readings, or a question of its own.
  const reused = reversedReading(orders);
  const reversed = reversedOf(orders[0]);
  const reversedQuestion: Questions = stress && reused < 0 ? { [REVERSED]: mainQuestion(request, reversed) } : {};
  const calls: Call[] = [
    {
      state: request.context,
      questions: { ...mainQuestions(request, orders), ...sufficiencyQuestions(request, debias), ...reversedQuestion },
      read: (answers, inputTokens) => {
        const main = calibrate(readAveraged(request, answers, orders));
        return {
          kind: 'base',
          inputTokens,
          main: weigh(main),
          distribution: main.mode === 'noul' ? [main.yes, 1 - main.yes] : [...main.p],
          contextSufficiency: round4(calibratedSufficiency(readSufficiency(answers, debias), options.scalings ?? {})),
          labelMass: roundedOrNull(smallestLabelMass(orders.map((_, j) => answers[readingName(MAIN, j)]))),
          reversed: !stress
            ? null
            : reused < 0
              ? fit(readMain(request, REVERSED, answers[REVERSED], reversed))
              : fit(readMain(request, readingName(MAIN, reused), answers[readingName(MAIN, reused)], orders[reused])),
        };
      },
    },
    ...(stress ? removableFacts(request.context) : []).map(
      (fact): Call => ({
        state: contextWithout(request.context, fact),
        questions: mainQuestions(request, orders),
        read: (answers, inputTokens) => ({
          kind: 'without-fact',
          inputTokens,
          main: fit(readAveraged(request, answers, orders)),
          fact,
        }),
      }),
    ),
  ];

  const asked = engine.askAll
    ? (await engine.askAll(calls, options.signal, options.call)).map((reply, i) => calls[i].read(reply.answers, reply.inputTokens))
    : await mapBounded(
        calls,
        options.concurrency ?? DEFAULT_CONCURRENCY,
        async (call, signal) => {
          const reply = await engine.ask(call.state, call.questions, signal, options.call);
          return call.read(reply.answers, reply.inputTokens);
        },
        options.signal,
      );

  const [base] = asked.filter((a) => a.kind === 'base');
  const withoutFacts = asked.filter((a) => a.kind === 'without-fact').map(({ fact, main }) => ({ fact, weighed: main }));
  const checked = base.reversed ? stressOf(base.main, base.reversed, withoutFacts) : null;
  // The probe's value at every depth: no rule weighing the checks into it did better
  // than the probe alone beyond noise on real weights (docs/eval.md, "Sufficiency at
  // stress depth"), and the one stress depth used to apply read below chance on a model
  // whose guesses move with the facts it is shown.
  const contextSufficiency = base.contextSufficiency;
  return {
    result: base.main.result,
    signal: signalOf(base.main, contextSufficiency, base.labelMass),
    contextSufficiency,
    labelMass: base.labelMass,
    inputTokens: asked.reduce((sum, a) => sum + a.inputTokens, 0),
    stress: checked,
    model: engine.model,
    distribution: base.distribution,
  };
}

/** A context of one fact (or none) has no without-fact checks: removing it leaves no context. */
function removableFacts(context: string): Fact[] {
  const facts = splitFacts(context);
  return facts.length > 1 ? facts : [];
}

const roundedOrNull = (x: number | null): number | null => (x === null ? null : round4(x));
