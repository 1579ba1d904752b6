import { z } from 'zod';

/** Length as the contract counts it: Unicode code points, not UTF-16 units. */
export function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Invisible characters: Unicode's default-ignorable code points (zero-width space,
 * zero-width non-joiner and joiner, word joiner, BOM, soft hyphen, bidirectional
 * controls, variation selectors, Hangul fillers, tag characters…). They draw nothing,
 * so left in they would let a blank question pass the length bounds, make two options
 * that look the same count as distinct, and carry text to the engine that no person
 * reading the request can see. The visible format characters (Arabic number signs)
 * are not in this set and stay.
 */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

export function withoutInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

/** Whether `text` holds an invisible character (a bidirectional control among them). */
export function hasInvisible(text: string): boolean {
  return text.replace(INVISIBLE, '') !== text;
}

/**
 * NUL (U+0000) is refused, not dropped, wherever a request carries text, keys included.
 * PostgreSQL's text columns cannot hold it, so a decision logged with one would fail its
 * commit after the engine had answered (issue 49); nothing of the contract needs it (no
 * person types one: it is a C string's end or binary data sent as text); and dropping it
 * as an invisible character would answer a System One request under names other than
 * the caller's own, which its answers must carry as sent. Checked before any engine call.
 */
export const NUL_REFUSED = 'must not contain the NUL character (U+0000)';

export function hasNul(text: string): boolean {
  return text.includes('\u0000');
}

/**
 * What two texts are compared by: without invisible characters, NFC, case-folded.
 * Upper- then lower-casing folds more than lower-casing alone (ß and SS, ς and σ);
 * NFC again because case mapping can decompose (ǰ upper-cases to J + caron).
 */
export function comparable(text: string): string {
  return withoutInvisible(text).normalize('NFC').toUpperCase().toLowerCase().normalize('NFC');
}

/**
 * A string without invisible characters, in NFC, trimmed of surrounding white space,
 * whose length in code points lies in [min, max] and that holds no NUL; the value
 * passed on is that cleaned string. The published minLength/maxLength state the same
 * numbers, which a JSON Schema validator counts on the raw string: a close guide for
 * clients, while the server's count is the one that decides.
 */
export function boundedText(min: number, max: number) {
  return z
    .string()
    .overwrite(withoutInvisible)
    .normalize('NFC')
    .trim()
    .check((ctx) => {
      const n = codePoints(ctx.value);
      if (hasNul(ctx.value)) {
        ctx.issues.push({ code: 'custom', message: NUL_REFUSED, input: ctx.value });
      } else if (n === 0) {
        ctx.issues.push({ code: 'custom', message: 'must not be empty', input: ctx.value });
      } else if (n < min || n > max) {
        ctx.issues.push({
          code: 'custom',
          message: `must be ${min} to ${max} characters long (got ${n})`,
          input: ctx.value,
        });
      }
    })
    .meta({ minLength: min, maxLength: max });
}
