import { fnv1a, mulberry32, seededDistribution, startHttpFake, type CommonBehaviour, type Fake, type Handler } from './http-fake.js';

/**
 * A loopback System One server (`POST /v1/systemone`): one state, named questions,
 * one answer per question in the wire shape vLLM / TypeSafe use.
 *
 * Default handler (deterministic): each question is answered from
 * mulberry32(FNV-1a-32(JSON.stringify([state, id, question]))): choice and score get one
 * weight per label in [0.25, 1.25), normalised; noul gets P(true) = 0.05 + 0.9·u for the
 * first draw u. `defaultAnswer(state, id, question)` returns exactly that wire answer.
 * `usage` defaults to input_tokens = ceil(characters of JSON [state, questions] / 4),
 * output_tokens = number of questions.
 */

export interface SystemOneBehaviour extends CommonBehaviour {
  /** The raw `answers` object to send, as is. */
  answers?: Record<string, unknown>;
  /** Per question: the wire answer, or undefined for the default one. */
  answer?: (id: string, question: any, body: any) => unknown;
  /** Question ids to leave out of `answers`. */
  missing?: string[];
  /** A number sets input_tokens; an object is sent as `usage`; null leaves `usage` out. */
  usage?: number | { input_tokens?: unknown; output_tokens?: unknown } | null;
}

export type SystemOneFake = Fake<SystemOneBehaviour>;

export function startSystemOneFake(handler?: Handler<SystemOneBehaviour>): Promise<SystemOneFake> {
  return startHttpFake<SystemOneBehaviour>({
    path: '/v1/systemone',
    modelsPath: '/v1/models',
    basePath: '',
    defaultHandler: handler ?? (() => ({})),
    success: reply,
  });
}

function reply(behaviour: SystemOneBehaviour, body: any): unknown {
  const questions: Record<string, any> = body?.questions ?? {};
  let answers: Record<string, unknown> = behaviour.answers ?? {};
  if (!behaviour.answers) {
    for (const [id, question] of Object.entries(questions)) {
      answers[id] = behaviour.answer?.(id, question, body) ?? defaultAnswer(body?.state, id, question);
    }
  }
  if (behaviour.missing) answers = Object.fromEntries(Object.entries(answers).filter(([id]) => !behaviour.missing!.includes(id)));
  const usage =
    behaviour.usage === undefined
      ? { input_tokens: Math.ceil(JSON.stringify([body?.state, questions]).length / 4), output_tokens: Object.keys(questions).length }
      : typeof behaviour.usage === 'number'
        ? { input_tokens: behaviour.usage, output_tokens: Object.keys(questions).length }
        : behaviour.usage;
  return { model: body?.model ?? 'fake', answers, ...(usage === null ? {} : { usage }) };
}

export function defaultAnswer(state: unknown, id: string, question: any): unknown {
  const seed = fnv1a(JSON.stringify([state, id, question]));
  switch (question?.type) {
    case 'noul':
      return noulAnswer(0.05 + 0.9 * mulberry32(seed)());
    case 'choice': {
      const labels = Object.keys(question.criteria ?? {});
      const shares = seededDistribution(seed, labels.length);
      return choiceAnswer(Object.fromEntries(labels.map((label, i) => [label, shares[i]])));
    }
    case 'score': {
      const criteria: unknown[] = Array.isArray(question.criteria) ? question.criteria : [];
      return scoreAnswer(seededDistribution(seed, criteria.length), criteria);
    }
    default:
      return { type: question?.type, error: 'the fake does not know this question type' };
  }
}

/** Wire answer of a noul question. */
export function noulAnswer(pTrue: number): unknown {
  return { type: 'noul', noul: pTrue };
}

/** Wire answer of a choice question, with `choice` and `confidence` as servers report them. */
export function choiceAnswer(probabilities: Record<string, number>): unknown {
  const [choice, confidence] = Object.entries(probabilities).reduce((best, entry) => (entry[1] > best[1] ? entry : best));
  return { type: 'choice', choice, confidence, probabilities };
}

/** Wire answer of a score question: probabilities keyed "0", "1", … by level index. */
export function scoreAnswer(probabilities: number[], criteria: unknown[] = probabilities.map(() => null)): unknown {
  return {
    type: 'score',
    score: probabilities.reduce((sum, p, i) => sum + i * p, 0),
    confidence: Math.max(...probabilities),
    legend: Object.fromEntries(criteria.map((text, i) => [String(i), text])),
    probabilities: Object.fromEntries(probabilities.map((p, i) => [String(i), p])),
  };
}
