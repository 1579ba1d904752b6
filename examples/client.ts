// The typed client: one decision of each mode, each answer narrowed by its mode.
//
//   DECIDE_URL=http://127.0.0.1:8787 DECIDE_API_KEY=dcd_api_… node client.js
//
// (compile it first, e.g. `npx tsc -p examples`, or paste it into your project,
// where `decide-service` is a dependency).
import { DecideClient, DecideError, type DecisionResponse } from 'decide-service';

const client = new DecideClient({
  url: process.env.DECIDE_URL ?? 'http://127.0.0.1:8787',
  apiKey: process.env.DECIDE_API_KEY,
});

/** A probability in per cent: 0.54 → "54 %". */
const percent = (p: number) => `${Math.round(p * 100)} %`;

/**
 * `confidence` is not a probability: it is how far the answer is from an even split,
 * (k·pmax − 1)/(k − 1) for k options or levels, 0 = evenly split, 1 = certain.
 */
const confidence = (c: number) => `confidence ${c.toFixed(2)}: 0 = evenly split, 1 = certain`;

/** One line per answer: what `mode` says the result holds. */
function summary(answer: DecisionResponse): string {
  switch (answer.mode) {
    case 'choice': {
      const { selected, probabilities } = answer.result;
      return `${selected}, ${percent(probabilities[selected])} (${confidence(answer.result.confidence)})`;
    }
    case 'noul':
      return `yes ${percent(answer.result.yesProbability)}`;
    case 'score': {
      const { likeliest, probabilities, score } = answer.result;
      return `likeliest ${likeliest}, ${percent(probabilities[likeliest])} (${confidence(answer.result.confidence)}); score ${score.toFixed(2)} of 0 to 2`;
    }
  }
}

try {
  const answers = [
    await client.decide({
      mode: 'choice',
      question: 'Which database should the team adopt for the new service?',
      context: 'The team knows SQL well. The service needs transactions across several tables. Traffic is modest.',
      options: ['PostgreSQL', 'MongoDB'],
    }),
    await client.decide({
      mode: 'noul',
      question: 'Should we ship the release on Friday?',
      context: 'All tests pass. The on-call engineer is away next week. Two customers asked for the fix.',
    }),
    await client.decide({
      mode: 'score',
      question: 'How risky is this migration?',
      context: 'The migration adds a nullable column. It runs on a table of ten million rows. A backup exists.',
      levels: ['low', 'medium', 'high'],
    }),
  ];
  for (const answer of answers) {
    console.log(`${answer.mode}: ${summary(answer)}, signal ${answer.signal}, context sufficiency ${answer.contextSufficiency}`);
  }
  const usage = await client.usage();
  console.log(`${usage.freeRemaining} free decisions left today, ${usage.passCredits} pass credits`);
} catch (error) {
  // Every failure is a DecideError: the service's status and code, or status 0 when it could not be reached.
  if (!(error instanceof DecideError)) throw error;
  console.error(`decide: ${error.message} (${error.status} ${error.code})`);
  process.exitCode = 1;
}
