// A System One engine that misbehaves on purpose, for the chaos run (bench/chaos.js).
// It answers POST /v1/systemone like bench/engine-server.js (a valid answer for every
// question, at once), except that each call may instead get one injected fault:
//
//   5xx      500, 502 or 503 (half of them with Retry-After: 0)  → decide: 503 engine_unavailable
//   429      429 with Retry-After: 0 (decide retries once)        → the retry, or 429 engine_busy
//   garbage  a 200 that is not a usable reply: not JSON, the wrong shape, a probability
//            out of range, or a body cut off mid-way                → 502 engine_bad_response
//   hang     no answer at all until decide gives up               → 504 engine_timeout
//   reset    the connection destroyed before any answer           → 503 engine_unavailable
//
// Rates come over IPC ({ type: 'faults', rates: { '5xx': 0.03, … } }); all 0 at start.
// { type: 'stats' } is answered with the calls served and the faults injected per kind.
// Runs in its own process; prints `engine listening on <url>` first.
import { createServer } from 'node:http';
import { answer } from '../lib/systemone-answers.js';

const KINDS = ['5xx', '429', 'garbage', 'hang', 'reset'];
let rates = Object.fromEntries(KINDS.map((kind) => [kind, 0]));
const injected = Object.fromEntries(KINDS.map((kind) => [kind, 0]));
let calls = 0;
let answered = 0;
const hanging = new Set();

function pickFault() {
  let u = Math.random();
  for (const kind of KINDS) {
    if (u < rates[kind]) return kind;
    u -= rates[kind];
  }
  return null;
}

function json(res, status, body, headers = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers }).end(text);
}

function garbage(res, request) {
  const questions = Object.keys(request?.questions ?? {});
  switch (Math.floor(Math.random() * 4)) {
    case 0:
      return json(res, 200, '<html><body>502 upstream hiccup</body></html>');
    case 1:
      return json(res, 200, { answers: 42 });
    case 2:
      // A probability no distribution has.
      return json(res, 200, { answers: Object.fromEntries(questions.map((id) => [id, { type: 'noul', noul: 7 }])) });
    default: {
      // A status line and half a body, then the connection goes.
      const text = JSON.stringify({ answers: Object.fromEntries(questions.map((id) => [id, answer(request.questions[id])])) });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.write(text.slice(0, Math.floor(text.length / 2)));
      setTimeout(() => res.socket?.destroy(), 5);
    }
  }
}

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/v1/systemone') return json(res, 404, { error: 'not found' });
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    calls++;
    let request;
    try {
      request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return json(res, 400, { error: 'bad json' });
    }
    const fault = pickFault();
    if (fault) injected[fault]++;
    switch (fault) {
      case '5xx': {
        const status = [500, 502, 503][Math.floor(Math.random() * 3)];
        return json(res, status, { error: 'injected failure' }, Math.random() < 0.5 ? { 'retry-after': '0' } : {});
      }
      case '429':
        return json(res, 429, { error: 'injected rate limit' }, { 'retry-after': '0' });
      case 'garbage':
        return garbage(res, request);
      case 'hang': {
        // Held until decide gives up on it (its deadline closes the connection), or 60 s.
        const timer = setTimeout(() => res.socket?.destroy(), 60_000);
        hanging.add(timer);
        res.on('close', () => {
          clearTimeout(timer);
          hanging.delete(timer);
        });
        return;
      }
      case 'reset':
        return req.socket.destroy();
    }
    answered++;
    const answers = {};
    for (const [id, q] of Object.entries(request.questions ?? {})) answers[id] = answer(q);
    json(res, 200, {
      model: request.model,
      answers,
      usage: { input_tokens: Math.ceil(String(request.state ?? '').length / 4) + 20, output_tokens: Object.keys(answers).length },
    });
  });
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 121_000;

process.on('message', (message) => {
  if (message?.type === 'faults') {
    rates = Object.fromEntries(KINDS.map((kind) => [kind, Number(message.rates?.[kind] ?? 0)]));
    process.send({ type: 'faults', id: message.id });
  } else if (message?.type === 'stats') {
    process.send({ type: 'stats', id: message.id, calls, answered, injected: { ...injected }, hanging: hanging.size });
  }
});
process.on('disconnect', () => process.exit(0)); // the run went away: do not linger
process.on('SIGTERM', () => process.exit(0));

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`engine listening on http://127.0.0.1:${server.address().port}\n`);
});
