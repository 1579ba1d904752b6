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

/** One line per answer: what `mode` says the result holds. */
function summary(answer: DecisionResponse): string {
  switch (answer.mode) {
    case 'choice':
      return `${answer.result.selected} (${Math.round(answer.result.confidence * 100)} %)`;
    case 'noul':
      return `yes ${Math.round(answer.result.yesProbability * 100)} %`;
    case 'score':
      return `score ${answer.result.score.toFixed(2)} of 0 to 2`;
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
