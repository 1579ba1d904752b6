// The floor of row 1: the least a decision service behind an HTTP engine must do, on the
// same stack as decide (Hono on @hono/node-server). POST /decide parses the JSON body,
// makes one engine call (the body decide sends for the bench's standard request, taken
// from BENCH_ENGINE_BODY) over a keep-alive undici Pool to the engine in
// BENCH_ENGINE_URL, and answers the engine's JSON. No auth, ledger, validation or log.
// Prints `floor listening on <url>` first.
import { Hono } from 'hono';
import { createAdaptorServer } from '@hono/node-server';
import { Pool } from 'undici';

const engine = new Pool(process.env.BENCH_ENGINE_URL, { connections: 32, keepAliveTimeout: 60_000 });
const engineBody = process.env.BENCH_ENGINE_BODY;

const app = new Hono();
app.post('/decide', async (c) => {
  const request = await c.req.json();
  const state = JSON.parse(engineBody);
  state.state = request.context; // the caller's context goes to the engine, as in decide
  const res = await engine.request({
    method: 'POST',
    path: '/v1/systemone',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(state),
  });
  const reply = await res.body.json();
  return c.json({ question: request.question, answers: reply.answers }, res.statusCode === 200 ? 200 : 502);
});

const server = createAdaptorServer({ fetch: app.fetch });
process.on('disconnect', () => process.exit(0)); // the bench went away: do not linger
process.on('SIGTERM', () => process.exit(0));

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`floor listening on http://127.0.0.1:${server.address().port}\n`);
});
