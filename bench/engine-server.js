// A System One engine for the bench: answers every POST /v1/systemone with a valid
// answer for each question it was asked, at once or after BENCH_ENGINE_DELAY_MS (the
// slow engine of the stress row). Runs in its own process so it does not share the load
// generator's event loop. Prints `engine listening on <url>` first. Over IPC it tells
// how many calls it has answered and the last request body (which the HTTP row replays
// to measure the engine alone).
import { createServer } from 'node:http';
import { answer } from './lib/systemone-answers.js';

const DELAY_MS = Number(process.env.BENCH_ENGINE_DELAY_MS ?? 0);
let calls = 0;
let last = null;

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/v1/systemone') {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    calls++;
    let request;
    try {
      last = Buffer.concat(chunks).toString('utf8');
      request = JSON.parse(last);
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"bad json"}');
      return;
    }
    const questions = request.questions ?? {};
    const answers = {};
    for (const [id, q] of Object.entries(questions)) answers[id] = answer(q);
    const body = JSON.stringify({
      model: request.model,
      answers,
      usage: { input_tokens: Math.ceil(String(request.state ?? '').length / 4) + 20, output_tokens: Object.keys(answers).length },
    });
    const send = () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    if (DELAY_MS > 0) setTimeout(send, DELAY_MS);
    else send();
  });
});
// Longer than any pause between bench phases, so decide's pooled connections never hit
// a server-side idle close mid-run (a POST is not retried on a reset socket).
server.keepAliveTimeout = 120_000;
server.headersTimeout = 121_000;

process.on('message', (message) => {
  if (message?.type === 'calls') process.send({ type: 'calls', id: message.id, calls, last });
});
process.on('disconnect', () => process.exit(0)); // the bench went away: do not linger
process.on('SIGTERM', () => process.exit(0));

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`engine listening on http://127.0.0.1:${server.address().port}\n`);
});
