// What the local engine evaluates for a decision, taken from decide's own code (row
// 5d): the calls `runDecision` hands an engine, and the readings the engine makes of
// them (src/engine/local/local.ts `askAll`: every question of every call, in order,
// through readings.ts and prompt.ts), so another evaluator can be given exactly its
// token sequences.
const dist = (file) => import(new URL(`../../dist/${file}`, import.meta.url).href);

/** `layout` made with `runtime` and `model`, a node-llama-cpp module and a model loaded by it. */
export async function decisionReadings(runtime, model) {
  const { DecisionRequest } = await dist('contract/decision.js');
  const { runDecision } = await dist('decision/run.js');
  const { PromptLayout } = await dist('engine/local/prompt.js');
  const { readingsOf } = await dist('engine/local/readings.js');
  const { lettered, answerOf } = await dist('engine/local/questions.js');
  const layout = PromptLayout.create(runtime, model);

  /** The calls `runDecision` hands an engine for `request`, caught before any evaluation. */
  async function callsOf(request, options) {
    let calls = null;
    const recorder = {
      name: 'recorder',
      model: 'recorder',
      askAll: async (asked) => {
        calls = plain(asked);
        throw new Error('recorded');
      },
    };
    await runDecision(request, recorder, options).catch(() => undefined);
    if (!calls) throw new Error('runDecision asked the engine nothing');
    return calls;
  }

  return {
    /**
     * A decision of `body`: its parsed request, its calls, per call the readings of
     * each question, and all readings in the engine's order with their prompt tokens.
     */
    async of(body, options) {
      const request = DecisionRequest.parse(body);
      const calls = await callsOf(request, options);
      const tokens = new Map();
      const entries = calls.map(({ state, questions }) =>
        Object.entries(questions).map(([name, question]) => ({
          name,
          question,
          ...readingsOf(layout, state, lettered(question), tokens, name),
        })),
      );
      const readings = entries.flat().flatMap((entry) => entry.readings);
      return { request, calls, entries, readings, promptTokens: readings.reduce((n, r) => n + r.tokens.length, 0) };
    },

    /**
     * The largest difference between `replies` (the engine's, per call) and the
     * answers made from `probabilities` (per reading, in the engine's order).
     */
    divergence({ entries }, replies, probabilities) {
      let at = 0;
      let most = 0;
      entries.forEach((questions, c) => {
        for (const { name, question, readings, combine } of questions) {
          const p = combine(readings.map((_, i) => probabilities[at + i]));
          at += readings.length;
          const engine = numbers(replies[c].answers[name]);
          numbers(answerOf(question, p)).forEach((x, i) => (most = Math.max(most, Math.abs(x - engine[i]))));
        }
      });
      return most;
    },
  };
}

/** Calls as an engine sees them, without `runDecision`'s readers: to compare two lists. */
export function plain(calls) {
  return calls.map(({ state, questions }) => ({ state, questions }));
}

/** An answer's numbers, in a fixed order. */
function numbers(answer) {
  if (answer.type === 'noul') return [answer.yes];
  return answer.type === 'choice' ? Object.values(answer.probabilities) : [...answer.probabilities];
}
