/**
 * Words every channel prints alike (the CLI, the tool server's text), so "1 credit"
 * and "5 credits" read the same wherever a count is shown.
 */

/** "1 credit", "5 credits", "0 credits": a count and its noun, singular only for one. */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
