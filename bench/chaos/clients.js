// The chaos run's clients: `clients` closed loops sharing `decisions` requests, each
// request one logical decision under one Idempotency-Key, whatever it takes to settle it.
// They speak through the typed client (dist/client), which validates every answer
// against the contract and retries 503 / 429 engine_busy / 409 under the same key;
// on top of that, a request that meets a dead server (status 0) or a 409 that outlasts
// the client's own retries is sent again, same key and body, to the next server, for up
// to `budgetMs`. Every request ends with exactly one outcome: the answer, or the error.
import { randomUUID } from 'node:crypto';
import { Agent } from 'undici';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @returns {Promise<{ outcomes: object[], connectionErrors: object[], loadMs: number }>}
 *   outcomes: one per request, { keyIndex, depth, status, code?, access?, replayed?, attempts, ms }
 *   connectionErrors: one per attempt that met no server, { server, from, to, code }
 */
export async function runClients({ DecideClient, DecideError, servers, keys, bodies, decisions, clients, budgetMs = 60_000, onIssued }) {
  // Connections are cheap on loopback; keep them, but let a dead server's go at once.
  const dispatcher = new Agent({ connections: clients, keepAliveTimeout: 10_000, pipelining: 1 });
  const perServer = new Map();
  const clientFor = (serverIndex, keyIndex) => {
    const server = servers[serverIndex];
    const id = `${serverIndex}/${keyIndex}/${server.url}`;
    let client = perServer.get(id);
    if (!client) {
      client = new DecideClient({
        url: server.url || `http://127.0.0.1:${server.port}`,
        apiKey: keys[keyIndex].key,
        dispatcher,
        timeoutMs: 60_000,
        retry: { retries: 2, maxWaitMs: 2_000, baseDelayMs: 100 },
      });
      perServer.set(id, client);
    }
    return client;
  };

  const outcomes = [];
  const connectionErrors = [];
  let issued = 0;
  const started = performance.now();

  async function one(n) {
    const keyIndex = Math.floor(Math.random() * keys.length);
    const body = bodies[Math.floor(Math.random() * bodies.length)];
    const idempotencyKey = randomUUID();
    let serverIndex = n % servers.length;
    const begin = performance.now();
    let attempts = 0;
    for (;;) {
      const from = performance.now();
      try {
        const answer = await clientFor(serverIndex, keyIndex).raw.decide(body, { idempotencyKey });
        attempts += answer.attempts;
        return {
          keyIndex,
          depth: body.depth ?? 'standard',
          status: answer.status,
          access: answer.data.access,
          stress: answer.data.stress != null,
          replayed: answer.replayed,
          attempts,
          ms: performance.now() - begin,
        };
      } catch (error) {
        attempts++;
        if (!(error instanceof DecideError)) {
          return {
            keyIndex,
            depth: body.depth ?? 'standard',
            status: -1,
            code: 'client_bug',
            message: String(error?.stack ?? error),
            attempts,
          };
        }
        const inBudget = performance.now() - begin < budgetMs;
        if (error.status === 0) {
          connectionErrors.push({ server: serverIndex, from, to: performance.now(), code: error.code, message: error.message });
          if (inBudget) {
            await sleep(50 + Math.random() * 150);
            serverIndex = (serverIndex + 1) % servers.length;
            continue;
          }
        } else if (error.code === 'idempotency_in_progress' && inBudget) {
          await sleep(250 + Math.random() * 250);
          continue;
        }
        return {
          keyIndex,
          depth: body.depth ?? 'standard',
          status: error.status,
          code: error.code,
          message: error.message,
          attempts,
          ms: performance.now() - begin,
        };
      }
    }
  }

  async function loop() {
    for (;;) {
      if (issued >= decisions) return;
      const n = issued++;
      onIssued?.(issued, decisions);
      outcomes.push(await one(n));
    }
  }

  try {
    await Promise.all(Array.from({ length: clients }, loop));
  } finally {
    await dispatcher.close().catch(() => dispatcher.destroy());
  }
  return { outcomes, connectionErrors, loadMs: performance.now() - started };
}

/** Every request body of the run: three modes, standard and (one in `stressEvery`) stress. */
export function requestBodies() {
  const context =
    'The team already runs PostgreSQL in production and knows it well. ' +
    'Billing needs strict multi-row transactions and an audit trail. ' +
    'Only two engineers share the on-call rotation.';
  const standard = [
    {
      mode: 'choice',
      question: 'Which database should the team adopt for billing?',
      context,
      options: ['PostgreSQL', 'MongoDB', 'DynamoDB'],
    },
    { mode: 'noul', question: 'Should the billing service ship this quarter?', context },
    { mode: 'score', question: 'How risky is the billing migration?', context, levels: ['low', 'medium', 'high'] },
  ];
  return { standard, stress: standard.map((b) => ({ ...b, depth: 'stress' })) };
}
