import { z } from 'zod';

/** Length as the contract counts it: Unicode code points, not UTF-16 units. */
export function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * A string trimmed of surrounding white space whose length, in code points, lies in
 * [min, max]. JSON Schema's minLength/maxLength also count code points, so the
 * published schema states the same bounds the server enforces.
 */
export function boundedText(min: number, max: number) {
  return z
    .string()
    .trim()
    .check((ctx) => {
      const n = codePoints(ctx.value);
      if (n === 0) {
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
