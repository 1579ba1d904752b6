import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * The token counts an engine reports for a call whose server gave none, worked out
 * here from the request the fake received, through the tokenizer library itself and
 * apart from src/engine/token-count.ts, so a test compares two derivations.
 */

/** o200k_base tokens of `text`, special-token lookalikes counted as the text they are. */
export function o200k(text: string): number {
  return countTokens(text, { disallowedSpecial: new Set() });
}

/**
 * OpenAI's documented count of a chat prompt: every message 3 tokens beyond its role
 * and content, 3 more priming the reply; plus `beside`, text sent outside the messages.
 */
export function chatPromptTokens(messages: ReadonlyArray<{ role: string; content: string }>, beside: readonly string[] = []): number {
  const framed = messages.reduce((sum, m) => sum + 3 + o200k(m.role) + o200k(m.content), 3);
  return beside.reduce((sum, text) => sum + o200k(text), framed);
}

/** An OpenAI-compatible request's prompt: its messages (a json_schema is not counted). */
export function openaiPromptTokens(body: any): number {
  return chatPromptTokens(body.messages);
}

/** An Anthropic request's prompt: its system text as a message, its messages and its tools' definitions. */
export function anthropicPromptTokens(body: any): number {
  return chatPromptTokens(
    [{ role: 'system', content: body.system }, ...body.messages],
    body.tools.map((tool: unknown) => JSON.stringify(tool)),
  );
}

/**
 * A System One request's texts: the state, and each question's instructions, option
 * names and their descriptions, levels, and yes/no texts, read off the wire.
 */
export function systemOnePromptTokens(body: any): number {
  const texts: string[] = [body.state];
  for (const question of Object.values<any>(body.questions)) {
    texts.push(question.instructions);
    const { criteria } = question;
    if (Array.isArray(criteria)) texts.push(...criteria);
    else if (question.type === 'choice')
      for (const [name, text] of Object.entries(criteria)) texts.push(name, ...(text === null ? [] : [text as string]));
    else if (criteria) texts.push(...Object.values(criteria).filter((text): text is string => typeof text === 'string'));
  }
  return texts.reduce((sum, text) => sum + o200k(text), 0);
}
