/**
 * What a parsed JSON body must not hold before a schema reads it, found without
 * recursion:
 *
 * - nesting deeper than a bound: zod walks a value recursively, and a state nested
 *   5,000 deep overflowed the stack (a 500 and a stack in the log for client input);
 * - the key "__proto__": JSON.parse keeps it as data, but every copy made with plain
 *   objects (a zod record is one) sets a prototype instead, so the member vanished
 *   unchecked. Refused by name wherever a key can appear.
 */

/** How deep a body's objects and arrays may nest (the System One route's bound). */
export const MAX_JSON_DEPTH = 64;

export interface ShapeProblem {
  /** Where: member names and array indexes from the root. */
  path: (string | number)[];
  message: string;
}

/** The first problem of `value` (breadth-first, so the shallowest), or null. */
export function jsonShapeProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): ShapeProblem | null {
  let level: Array<{ value: unknown; path: (string | number)[] }> = [{ value, path: [] }];
  for (let depth = 1; level.length > 0; depth++) {
    const next: typeof level = [];
    for (const { value: node, path } of level) {
      if (node === null || typeof node !== 'object') continue;
      if (depth > maxDepth) return { path, message: `must not nest more than ${maxDepth} levels of objects and arrays` };
      if (Array.isArray(node)) {
        node.forEach((item, i) => next.push({ value: item, path: [...path, i] }));
        continue;
      }
      for (const key of Object.keys(node)) {
        if (key === '__proto__') return { path: [...path, key], message: '"__proto__" cannot be a key here' };
        next.push({ value: (node as Record<string, unknown>)[key], path: [...path, key] });
      }
    }
    level = next;
  }
  return null;
}
