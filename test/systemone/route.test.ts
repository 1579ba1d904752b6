import { afterEach, describe, expect, it } from 'vitest';
import { choiceByName, factsText, offeredGroups, offeredOptions, questionText } from '../fakes/openai-fake.js';
import { tokens } from '../support/scripts.js';
import { startWithOpenAI, type Running, type StartOptions } from '../support/service.js';

const STATE = 'The invoice was paid twice. The customer wrote three times this week.';

/** `{"a": {"a": … 1}}`, `levels` objects deep, as JSON text (JSON.stringify itself overflows the stack on it). */
const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('POST /v1/systemone: requests as the format allows them', () => {
  let svc: Running;
  afterEach(() => svc?.close());
  async function start(options: StartOptions = {}) {
    svc = await startWithOpenAI(options);
    return (await svc.newKey()).key;
  }
  const ask = (key: string, json: unknown, headers: Record<string, string> = {}) =>
    svc.call('POST', '/v1/systemone', { key, json, headers });
  /** JSON text as written, for key orders no JavaScript object could hold. */
  const askText = (key: string, raw: string) =>
    svc.call('POST', '/v1/systemone', { key, raw, headers: { 'content-type': 'application/json' } });
  const usage = async (key: string) => (await svc.call('GET', '/v1/usage', { key })).body;
  const nouls = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, { type: 'noul' }]));
  const options = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`Queue ${i + 1}`, null]));

  it('refuses a bad request with 422 {detail: [{loc, msg, type}]} locating every problem, before anything is charged or asked', async () => {
    const key = await start();
    const cases: [unknown, (string | number)[], string, string][] = [
      [
        { state: STATE, questions: { topic: { type: 'choice', criteria: { only: null } } } },
        ['body', 'questions', 'topic', 'criteria'],
        'must hold 2 to 255 options (got 1)',
        'value_error',
      ],
      [
        { state: STATE, questions: { topic: { type: 'choice', criteria: options(256) } } },
        ['body', 'questions', 'topic', 'criteria'],
        'must hold 2 to 255 options (got 256)',
        'value_error',
      ],
      [
        { state: STATE, questions: { topic: { type: 'choice', criteria: { Billing: null, 'BILLING\u200b': null } } } },
        ['body', 'questions', 'topic', 'criteria', 'BILLING\u200b'],
        'must be distinct',
        'value_error',
      ],
      [
        { state: STATE, questions: { level: { type: 'score', criteria: Array(11).fill('x') } } },
        ['body', 'questions', 'level', 'criteria'],
        'must hold 2 to 10 levels',
        'too_long',
      ],
      [
        { state: STATE, questions: { level: { type: 'score', criteria: { 0: 'low', 1: 'high' } } } },
        ['body', 'questions', 'level', 'criteria'],
        'expected array',
        'array_type',
      ],
      [
        { state: STATE, questions: { q: { type: 'yesno' } } },
        ['body', 'questions', 'q', 'type'],
        'must be one of noul, choice, score',
        'union_tag_invalid',
      ],
      [
        { state: STATE, questions: { q: { type: 'noul', critera: {} } } },
        ['body', 'questions', 'q', 'critera'],
        'not allowed here',
        'extra_forbidden',
      ],
      [{ state: STATE, questions: {} }, ['body', 'questions'], 'must hold 1 to 64 questions (got 0)', 'value_error'],
      [{ state: STATE, questions: nouls(65) }, ['body', 'questions'], 'must hold 1 to 64 questions (got 65)', 'value_error'],
      [
        { state: STATE, questions: { '': { type: 'noul' } } },
        ['body', 'questions', ''],
        "a question's id must not be empty",
        'value_error',
      ],
      [
        JSON.parse('{"state": "x", "questions": {"__proto__": {"type": "noul"}}}'),
        ['body', 'questions', '__proto__'],
        '"__proto__" cannot be a key here',
        'value_error',
      ],
      // Labels the engine would read as one (it trims them): refused by name, not merged and split 0.5/0.5.
      [
        { state: STATE, questions: { q: { type: 'choice', criteria: { yes: null, 'yes ': null } } } },
        ['body', 'questions', 'q', 'criteria', 'yes '],
        '"yes " repeats "yes"',
        'value_error',
      ],
      [
        { state: STATE, questions: { q: { type: 'choice', criteria: { 'Caf\u00e9': null, ' Cafe\u0301\u2060': null } } } },
        ['body', 'questions', 'q', 'criteria', ' Cafe\u0301\u2060'],
        'must be distinct',
        'value_error',
      ],
      // "__proto__" wherever a key can appear: a criteria key, inside a JSON state or description.
      [
        JSON.parse('{"state": "x", "questions": {"q": {"type": "choice", "criteria": {"a": null, "__proto__": null}}}}'),
        ['body', 'questions', 'q', 'criteria', '__proto__'],
        '"__proto__" cannot be a key here',
        'value_error',
      ],
      [
        JSON.parse('{"state": {"ticket": {"__proto__": 1}}, "questions": {"q": {"type": "noul"}}}'),
        ['body', 'state', 'ticket', '__proto__'],
        '"__proto__" cannot be a key here',
        'value_error',
      ],
      [
        JSON.parse('{"state": "x", "questions": {"q": {"type": "choice", "criteria": {"a": {"__proto__": "d"}, "b": null}}}}'),
        ['body', 'questions', 'q', 'criteria', 'a', '__proto__'],
        '"__proto__" cannot be a key here',
        'value_error',
      ],
      [
        { state: 'x'.repeat(16_001), questions: { q: { type: 'noul' } } },
        ['body', 'state'],
        'must be at most 16000 characters as text (got 16001)',
        'value_error',
      ],
      [{ state: 7, questions: { q: { type: 'noul' } } }, ['body', 'state'], 'must be text, a JSON object or array, or null', 'union_type'],
      [{ questions: { q: { type: 'noul' } } }, ['body', 'state'], 'Field required', 'missing'],
      [
        { state: STATE, questions: { q: { type: 'noul', instructions: { long: 'y'.repeat(2_000) } } } },
        ['body', 'questions', 'q', 'instructions'],
        'must be at most 2000 characters as text',
        'value_error',
      ],
    ];
    for (const [body, loc, msg, type] of cases) {
      const res = await ask(key, body);
      expect(res.status, msg).toBe(422);
      expect(res.body.detail, msg).toContainEqual({ loc, msg: expect.stringContaining(msg), type });
    }
    // Nesting bounded: a state 5,000 deep overflowed zod's stack (500, and a stack in the log).
    const nested = await askText(key, `{"state": ${deep(5_000)}, "questions": {"q": {"type": "noul"}}}`);
    expect(nested.status).toBe(422);
    expect(nested.body.detail).toEqual([
      {
        loc: ['body', 'state', ...Array(63).fill('a')],
        msg: 'must not nest more than 64 levels of objects and arrays',
        type: 'value_error',
      },
    ]);
    const broken = await askText(key, '{"state": "x", "questions": {,}}');
    expect(broken.status).toBe(422);
    expect(broken.body.detail).toEqual([
      { loc: ['body', 29], msg: expect.stringMatching(/^the body is not valid JSON: /), type: 'json_invalid' },
    ]);
    const badKey = await ask(key, { state: STATE, questions: { q: { type: 'noul' } } }, { 'idempotency-key': 'é' });
    expect(badKey.body.detail).toEqual([
      { loc: ['header', 'idempotency-key'], msg: 'must be 1 to 255 printable ASCII characters', type: 'value_error' },
    ]);
    expect(svc.fake.requests).toHaveLength(0);
    expect((await usage(key)).freeUsed).toBe(0);
    expect(svc.logs.join('\n')).not.toMatch(/Maximum call stack|"stack"/);
  });

  it('takes the format’s whole range: 255 options, 10 levels, 64 questions, any id, any model, structured text, unknown members', async () => {
    await start();
    const { key } = await svc.newKey(100);
    const ids = ['ticket-1', 'q.2', 'with space', '질문', '🎯', ' ', 'constructor', '10', '2', ...Object.keys(nouls(53))];
    const questions: Record<string, unknown> = Object.fromEntries(ids.map((id) => [id, { type: 'noul' }]));
    questions.queue = { type: 'choice', instructions: ['Route the ticket.', 'Pick one queue.'], criteria: options(255) };
    questions.urgency = {
      type: 'score',
      instructions: { scale: 'urgency' },
      criteria: Array.from({ length: 10 }, (_, i) => ({ level: i })),
    };
    expect(Object.keys(questions)).toHaveLength(64);
    const res = await ask(key, { model: 'jev-latest', state: { ticket: 'Charged twice' }, questions, assets: null, x_trace_id: 'abc' });
    expect(res.status).toBe(200);
    // Every id back exactly once, as sent, in the order sent, and nothing else. (This client's
    // JSON.stringify wrote the integer-like ids first: they are sent, and answered, first.)
    expect(answerIdsInOrder(res.text)).toEqual(Object.keys(questions));
    expect(Object.keys(res.body.answers).sort()).toEqual(Object.keys(questions).sort());
    expect(Object.keys(res.body.answers.queue.probabilities)).toHaveLength(255);
    expect(Object.keys(res.body.answers.urgency.legend)).toHaveLength(10);
    expect(res.body.answers.urgency.legend['9']).toEqual({ level: 9 });
    expect(Number.isInteger(res.body.usage.input_tokens)).toBe(true);
    expect(res.body.model).toBe('fake-logprobs-1');
    // 64 standard decisions: the day's 20 free ones, then 44 credits.
    expect(await usage(key)).toMatchObject({ freeUsed: 20, passCredits: 56 });
  });

  it('reads a JSON state compactly in the order written, the caller’s own wording, and echoes option names as sent', async () => {
    const key = await start();
    svc.fake.respond((body) => ({ labels: tokens(body, { 'Billing — payments': 0.8, Technical: 0.2 }) }));
    const res = await askText(
      key,
      `{"state": {"ticket": {"text": "Charged twice", "customer": "ACME"}, "2": "second", "10": "tenth"},
        "questions": {"team": {"type": "choice", "instructions": "Which team handles it?", "criteria": {"Billing\u200b": "payments", "Technical": null}}}}`,
    );
    expect(res.status).toBe(200);
    const [request] = svc.fake.requests;
    expect(factsText(request.body)).toBe('{"ticket":{"text":"Charged twice","customer":"ACME"},"2":"second","10":"tenth"}');
    expect(questionText(request.body)).toBe('Which team handles it?');
    // The engine reads the name without its invisible character; the answer keeps it as sent.
    expect(offeredOptions(request.body).map((o) => o.text)).toEqual(['Billing — payments', 'Technical']);
    expect(res.body).toEqual({
      model: 'fake-logprobs-1',
      answers: {
        team: {
          type: 'choice',
          choice: 'Billing\u200b',
          confidence: 0.6,
          probabilities: { 'Billing\u200b': expect.closeTo(0.8, 12), Technical: expect.closeTo(0.2, 12) },
        },
      },
      usage: { input_tokens: expect.any(Number), output_tokens: 0 },
    });
  });

  it('presents options sorted whatever order they are written in, integer-like names too, answers in the order written, and a tie goes to the first written', async () => {
    const key = await start();
    svc.fake.respond((body) => ({ labels: choiceByName(body, { b: 0.4, 10: 0.4, 2: 0.2 }) }));
    const res = await askText(
      key,
      `{"state": "${STATE}", "questions": {"pick": {"type": "choice", "criteria": {"b": null, "10": null, "2": null}}}}`,
    );
    expect(offeredOptions(svc.fake.requests[0].body).map((o) => o.text)).toEqual(['10', '2', 'b']);
    expect(res.text).toMatch(/"probabilities":\{"b":[\d.e-]+,"10":[\d.e-]+,"2":[\d.e-]+\}/);
    expect(res.body.answers.pick.choice).toBe('b');
  });

  it('answers a score with the distance-based confidence and its legend; a null level as the number it was shown as', async () => {
    const key = await start();
    svc.fake.respond(() => ({ labels: { 1: 0.1, 2: 0.6, 3: 0.3 } }));
    const res = await ask(key, { state: STATE, questions: { level: { type: 'score', criteria: ['low', null, { high: true }] } } });
    const { level } = res.body.answers;
    expect(level.legend).toEqual({ 0: 'low', 1: '1', 2: { high: true } });
    expect(offeredOptions(svc.fake.requests[0].body).map((o) => o.text)).toEqual(['low', '1', '{"high":true}']);
    expect(level.score).toBeCloseTo(1.2, 4);
    // 1 − Σ p·|i − mode| / the uniform spread: 1 − (0.1 + 0.3) / (2/3) = 0.4.
    expect(level.confidence).toBeCloseTo(0.4, 4);
  });

  it('debiases and calibrates each question as configured: one reading per question, in both orders', async () => {
    const key = await start({ debias: 'reverse', scalings: { noul: { temperature: 2 } } });
    // A model that favours whatever it is shown first: 0.7 on the first answer, either way round.
    svc.fake.respond((body) => {
      const [first, second] = offeredOptions(body).map((o) => o.label);
      return { labels: { [first]: 0.7, [second]: 0.3 } };
    });
    const res = await ask(key, {
      state: STATE,
      questions: { paid: { type: 'noul', instructions: 'Was it paid twice?' }, level: { type: 'score', criteria: ['low', 'high'] } },
    });
    expect(res.status).toBe(200);
    expect(svc.fake.requests).toHaveLength(4);
    // The place bias cancels out; the temperature leaves an even reading even.
    expect(res.body.answers.paid.noul).toBeCloseTo(0.5, 12);
    expect(res.body.answers.level).toEqual({
      type: 'score',
      score: 0.5,
      confidence: 0,
      legend: { 0: 'low', 1: 'high' },
      probabilities: { 0: expect.closeTo(0.5, 12), 1: expect.closeTo(0.5, 12) },
    });

    // Calibration applies to the mode it was fitted for: p ∝ p^(1/2).
    svc.fake.respond((body) => ({ labels: tokens(body, { Yes: 0.8, No: 0.2 }) }));
    const calibrated = await ask(key, { state: STATE, questions: { paid: { type: 'noul', instructions: 'Was it paid twice?' } } });
    expect(calibrated.body.answers.paid.noul).toBeCloseTo(Math.sqrt(0.8) / (Math.sqrt(0.8) + Math.sqrt(0.2)), 12);
  });

  it('reads a many-option question in at most 10 orders under cyclic debiasing, each option in places spread over the list', async () => {
    const key = await start({ debias: 'cyclic' });
    const res = await ask(key, { state: STATE, questions: { queue: { type: 'choice', criteria: options(40) } } });
    expect(res.status).toBe(200);
    // Ten readings of 40 options, each in 2 groups: a group question and 2 group questions.
    // Shifts of the options as shown, sorted ("Queue 1", "Queue 10", …, "Queue 9"), 4 apart.
    const shown = Object.keys(options(40)).sort();
    const firsts = svc.fake.requests.filter((r) => offeredGroups(r.body).length > 0).map((r) => offeredGroups(r.body)[0].members[0]);
    expect(firsts.sort()).toEqual([0, 4, 8, 12, 16, 20, 24, 28, 32, 36].map((i) => shown[i]).sort());
    expect(svc.fake.requests).toHaveLength(30);
  });
});

/** The answers' ids in the order the JSON text writes them. */
function answerIdsInOrder(text: string): string[] {
  const answers = text.slice(text.indexOf('"answers":{') + '"answers":{'.length);
  return [...answers.matchAll(/(?:^|\},)("(?:[^"\\]|\\.)*"):\{"type"/g)].map((m) => JSON.parse(m[1]) as string);
}
