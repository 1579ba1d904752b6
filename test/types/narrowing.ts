// Type test of the package's exported types, compiled under `strict` by
// test/examples/examples.test.ts against the built declarations (`import … from 'decide-service'`).
// It runs nothing: each line either compiles, or carries @ts-expect-error and must not.
import type { ChoiceResponse, DecideClient, DecisionResponse, NoulResponse, ScoreResponse } from 'decide-service';

declare const answer: DecisionResponse;
declare const client: DecideClient;

// Checking `mode` narrows the result to that mode's.
if (answer.mode === 'choice') {
  const selected: string = answer.result.selected;
  const probabilities: Record<string, number> = answer.result.probabilities;
  // @ts-expect-error a choice has no yesProbability
  void answer.result.yesProbability;
  void [selected, probabilities];
}
if (answer.mode === 'noul') {
  const yes: number = answer.result.yesProbability;
  // @ts-expect-error a yes/no answer has no selected option
  void answer.result.selected;
  void yes;
}
if (answer.mode === 'score') {
  const score: number = answer.result.score;
  const confidence: number = answer.result.confidence;
  const likeliest: string = answer.result.likeliest;
  void [score, confidence, likeliest];
}

// Without narrowing, only what every mode has.
const signal: 'directional' | 'yes' | 'no' | 'unclear' | 'needs-context' = answer.signal;
// @ts-expect-error the mode is not known yet
void answer.result.selected;
void signal;

// A switch over the modes is exhaustive: nothing is left for `never`.
function top(a: DecisionResponse): string {
  switch (a.mode) {
    case 'choice':
      return a.result.selected;
    case 'noul':
      return a.result.yesProbability >= 0.5 ? 'yes' : 'no';
    case 'score':
      return String(a.result.score);
    default: {
      const unreachable: never = a;
      return unreachable;
    }
  }
}
void top;

// The per-mode types are exported, and a decision is one of them.
const asUnion = (a: ChoiceResponse | NoulResponse | ScoreResponse): DecisionResponse => a;
void asUnion;

// The client's answers are that union.
async function fromClient(): Promise<string> {
  const decided = await client.decide({
    mode: 'noul',
    question: 'Should we ship on Friday?',
    context: 'All tests pass. Nobody is on call.',
  });
  return decided.mode === 'noul' ? String(decided.result.yesProbability) : 'not asked';
}
void fromClient;
