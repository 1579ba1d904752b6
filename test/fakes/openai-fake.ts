import { fnv1a, seededDistribution, startHttpFake, type CommonBehaviour, type Fake, type Handler } from './http-fake.js';

/**
 * A loopback OpenAI-compatible Chat Completions server (`POST /v1/chat/completions`)
 * that answers with one token and its `top_logprobs`, as the openai engine asks.
 *
 * Default handler (deterministic): it reads the labels the prompt offers
 * (`offeredLabels`), draws one weight per label in [0.25, 1.25) from
 * mulberry32(FNV-1a-32(JSON.stringify(messages))), and gives the labels 0.9 of the mass
 * in proportion to those weights and the non-label token "The" the other 0.1.
 * `defaultLabelProbabilities(body)` returns exactly that map. `usage.prompt_tokens`
 * defaults to ceil(characters of all message contents / 4).
 *
 * A request with `response_format: { type: 'json_schema' }` (the engine's verbalized
 * mode) is answered like a server without logprobs: `logprobs: null` and the message
 * content `JSON.stringify(labels)`, where `labels` defaults to the same map without
 * "The" (so both modes renormalise to the same distribution).
 */

export interface OpenAIBehaviour extends CommonBehaviour {
  /** Token → probability; any token, label or not. Emitted as top_logprobs, likeliest first. */
  labels?: Record<string, number>;
  /** Raw top_logprobs, emitted as given. */
  topLogprobs?: Array<{ token: string; logprob: number }>;
  /** 200 with `logprobs: null`. */
  noLogprobs?: boolean;
  /** 200 without any `logprobs` field. */
  omitLogprobs?: boolean;
  /** json_schema requests: the message content as is, instead of the JSON of `labels`. */
  content?: string | null;
  /** json_schema requests: `message.refusal`. */
  refusal?: string;
  /** `finish_reason`; default `length` for a logprob request, `stop` for a json_schema one. */
  finishReason?: string;
  /** `usage.prompt_tokens`; null leaves `usage` out. */
  usage?: number | null;
}

export type OpenAIFake = Fake<OpenAIBehaviour>;

export function startOpenAIFake(handler?: Handler<OpenAIBehaviour>): Promise<OpenAIFake> {
  return startHttpFake<OpenAIBehaviour>({
    path: '/v1/chat/completions',
    modelsPath: '/v1/models',
    basePath: '/v1',
    // Empty: `completion` fills in the default answer of whichever mode the request asks for.
    defaultHandler: handler ?? (() => ({})),
    success: completion,
  });
}

function completion(behaviour: OpenAIBehaviour, body: any): unknown {
  if (body?.response_format?.type === 'json_schema') return statedCompletion(behaviour, body);
  const top =
    behaviour.topLogprobs ??
    Object.entries(behaviour.labels ?? defaultLabelProbabilities(body))
      .filter(([, p]) => p > 0)
      .sort(([, a], [, b]) => b - a)
      .map(([token, p]) => ({ token, logprob: Math.log(p) }));
  const first = top[0] ?? { token: '', logprob: 0 };
  return {
    id: `chatcmpl-fake-${fnv1a(JSON.stringify(body))}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: body?.model ?? 'fake',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: first.token },
        ...(behaviour.omitLogprobs
          ? {}
          : {
              logprobs: behaviour.noLogprobs
                ? null
                : { content: [{ token: first.token, logprob: first.logprob, bytes: null, top_logprobs: top }] },
            }),
        finish_reason: behaviour.finishReason ?? 'length',
      },
    ],
    ...usage(behaviour, body),
  };
}

/** The answer to a json_schema request: the stated probabilities as the message content. */
function statedCompletion(behaviour: OpenAIBehaviour, body: any): unknown {
  const content =
    behaviour.content !== undefined ? behaviour.content : JSON.stringify(behaviour.labels ?? defaultStatedProbabilities(body));
  return {
    id: `chatcmpl-fake-${fnv1a(JSON.stringify(body))}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: body?.model ?? 'fake',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: behaviour.refusal ?? null },
        logprobs: null,
        finish_reason: behaviour.finishReason ?? 'stop',
      },
    ],
    ...usage(behaviour, body),
  };
}

function usage(behaviour: OpenAIBehaviour, body: any): object {
  const promptTokens = behaviour.usage === undefined ? Math.ceil(promptText(body).length / 4) : behaviour.usage;
  return promptTokens === null ? {} : { usage: { prompt_tokens: promptTokens, completion_tokens: 1, total_tokens: promptTokens + 1 } };
}

/** The default answer to a json_schema request: the labels' part of `defaultLabelProbabilities`. */
export function defaultStatedProbabilities(body: any): Record<string, number> {
  const all = defaultLabelProbabilities(body);
  return Object.fromEntries(offeredLabels(body).map((label) => [label, all[label]]));
}

/** The default handler's distribution for a request: labels share 0.9, "The" has 0.1. */
export function defaultLabelProbabilities(body: any): Record<string, number> {
  const labels = offeredLabels(body);
  const shares = seededDistribution(fnv1a(JSON.stringify(body?.messages ?? [])), labels.length, 0.9);
  return { ...Object.fromEntries(labels.map((label, i) => [label, shares[i]])), The: 0.1 };
}

function messageText(body: any, role?: string): string {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  return messages
    .filter((m) => role === undefined || m?.role === role)
    .map((m) => (typeof m?.content === 'string' ? m.content : ''))
    .join('\n\n');
}

/** Every message's content, joined: for `includes` checks on what a request asks. */
export function promptText(body: any): string {
  return messageText(body);
}
export function systemText(body: any): string {
  return messageText(body, 'system');
}
export function userText(body: any): string {
  return messageText(body, 'user');
}

const SECTION = /^(Options|Levels|Answers|Groups):$/;
const OPTION = /^- ([^:\s]+)(?:: (.*))?$/;
const GROUP = /^- ([A-Z]+):$/;
const MEMBER = /^ {2}- (.*)$/;

function lastSection(body: any): { lines: string[]; at: number } {
  const lines = userText(body).split('\n');
  let at = -1;
  lines.forEach((line, i) => {
    if (SECTION.test(line)) at = i;
  });
  return { lines, at };
}

/**
 * The labelled options of the prompt in presentation order: `{ label: 'A', text:
 * 'approve — description' }`, `{ label: '2', text: 'medium' }`, `{ label: 'Yes', text: '' }`.
 */
export function offeredOptions(body: any): Array<{ label: string; text: string }> {
  const { lines, at } = lastSection(body);
  if (at < 0) return [];
  // A grouped choice's group question: the groups are its options, their members joined as their text.
  if (lines[at] === 'Groups:') return offeredGroups(body).map((g) => ({ label: g.label, text: g.members.join(' | ') }));
  const options: Array<{ label: string; text: string }> = [];
  for (const line of lines.slice(at + 1)) {
    const match = OPTION.exec(line);
    if (!match) break;
    options.push({ label: match[1], text: match[2] ?? '' });
  }
  return options;
}

/**
 * The groups of a grouped choice's group question (src/engine/grouped.ts), in order:
 * `{ label: 'A', members: ['approve — the plan is funded', 'reject'] }`; none for any other prompt.
 */
export function offeredGroups(body: any): Array<{ label: string; members: string[] }> {
  const { lines, at } = lastSection(body);
  if (at < 0 || lines[at] !== 'Groups:') return [];
  const groups: Array<{ label: string; members: string[] }> = [];
  for (const line of lines.slice(at + 1)) {
    const group = GROUP.exec(line);
    const member = MEMBER.exec(line);
    if (group) groups.push({ label: group[1], members: [] });
    else if (member && groups.length > 0) groups.at(-1)!.members.push(member[1]);
    else break;
  }
  return groups;
}

export function offeredLabels(body: any): string[] {
  return offeredOptions(body).map((o) => o.label);
}

/** What kind of question the prompt is: `choice`, `score` or `noul` (undefined if unrecognised). */
export function questionKind(body: any): 'choice' | 'score' | 'noul' | undefined {
  const { lines, at } = lastSection(body);
  const header = at < 0 ? undefined : lines[at];
  return header === 'Options:' || header === 'Groups:'
    ? 'choice'
    : header === 'Levels:'
      ? 'score'
      : header === 'Answers:'
        ? 'noul'
        : undefined;
}

/** The question's instructions, as the prompt states them. */
export function questionText(body: any): string {
  const { lines, at } = lastSection(body);
  if (at < 0) return '';
  const start = lines.lastIndexOf('Question:', at);
  return start < 0
    ? ''
    : lines
        .slice(start + 1, at)
        .join('\n')
        .trim();
}

/** The facts (state) the prompt carries. */
export function factsText(body: any): string {
  const text = userText(body);
  const match = /^Facts:\n([\s\S]*?)\n\nQuestion:\n/.exec(text);
  return match ? match[1] : '';
}

/**
 * Translates probabilities keyed by option text into token probabilities for `labels`,
 * whatever order the options were presented in: `byOptionText(body, { approve: 0.7,
 * reject: 0.3 })` → `{ B: 0.7, A: 0.3 }` when reject was listed first. A key matches
 * the option whose text equals it or starts with it followed by " — ", else the option
 * with that label. Noul options are keyed by `Yes` / `No`, score levels by their description.
 */
export function byOptionText(body: any, probabilities: Record<string, number>): Record<string, number> {
  const options = offeredOptions(body);
  const out: Record<string, number> = {};
  for (const [key, p] of Object.entries(probabilities)) {
    // Text first: a choice whose own option names are letters must not match by label.
    const option = options.find((o) => o.text === key || o.text.startsWith(`${key} — `)) ?? options.find((o) => o.label === key);
    if (!option)
      throw new Error(`the prompt offers no option "${key}" (offers: ${options.map((o) => `${o.label}: ${o.text}`).join('; ')})`);
    out[option.label] = p;
  }
  return out;
}

/**
 * A model that holds `probabilities` over a choice's options (keyed by option name) and
 * answers any prompt of it consistently: a plain question with the probabilities of
 * the options it offers, renormalised; a grouped choice's group question with each
 * group's sum. As token probabilities for `labels`.
 */
export function choiceByName(body: any, probabilities: Record<string, number>): Record<string, number> {
  const name = (text: string) => Object.keys(probabilities).find((key) => text === key || text.startsWith(`${key} — `));
  const groups = offeredGroups(body);
  const masses: Array<[string, number]> =
    groups.length > 0
      ? groups.map((g) => [g.label, g.members.reduce((sum, m) => sum + (probabilities[name(m) ?? ''] ?? 0), 0)])
      : offeredOptions(body).map((o) => [o.label, probabilities[name(o.text) ?? ''] ?? 0]);
  const total = masses.reduce((sum, [, m]) => sum + m, 0);
  return Object.fromEntries(masses.map(([label, m]) => [label, m / total]));
}
