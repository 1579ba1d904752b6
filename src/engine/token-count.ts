/**
 * decide's own count of the tokens a call sent, for a server whose answer reports none
 * (an OpenAI-compatible server or proxy that leaves out `usage`, a System One server
 * without it). The server's count is the one reported whenever it gives one; this is
 * the fallback that keeps a decision's `inputTokens` from being unknown.
 *
 * Counted in OpenAI's o200k_base encoding (gpt-tokenizer, pure JavaScript): the
 * tokenizer of OpenAI's current models, an estimate for any other model, whose own
 * tokenizer decide does not have. It is imported on the first count and not before,
 * since its ranks take ~0.2 s to load and ~60 MB to hold: a server whose engine
 * reports its counts never loads it, and neither does any CLI command.
 */

type Counter = (text: string) => number;

let loading: Promise<Counter> | undefined;

function o200k(): Promise<Counter> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then(
    ({ countTokens }) =>
      // Facts that hold `<|endoftext|>` are that text, not the special token: servers
      // read a message's content so, and the library would otherwise throw on it.
      (text: string) =>
        countTokens(text, { disallowedSpecial: new Set() }),
  );
  return loading;
}

/**
 * How OpenAI counts a chat prompt for its models: each message is its role and its
 * content and 3 tokens of framing around them, and 3 more tokens open the reply.
 * Other servers frame messages in their own chat templates, a few tokens apart.
 */
export const TOKENS_PER_MESSAGE = 3;
export const REPLY_PRIMING_TOKENS = 3;

export interface SentMessage {
  role: string;
  content: string;
}

/**
 * A chat call's prompt as sent: its messages with the framing above, and any text the
 * call sent beside them that the model is given too (a tool's definition), as is.
 */
export async function chatTokens(messages: readonly SentMessage[], beside: readonly string[] = []): Promise<number> {
  const count = await o200k();
  let sum = REPLY_PRIMING_TOKENS;
  for (const { role, content } of messages) sum += TOKENS_PER_MESSAGE + count(role) + count(content);
  for (const text of beside) sum += count(text);
  return sum;
}

/**
 * Texts a server puts into a prompt of its own (System One's state and questions):
 * their tokens alone, since the server's wording around them is its own.
 */
export async function textTokens(texts: readonly string[]): Promise<number> {
  const count = await o200k();
  return texts.reduce((sum, text) => sum + count(text), 0);
}
