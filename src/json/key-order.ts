/**
 * JSON objects whose keys keep the order they were written in.
 *
 * A JavaScript object lists integer-like keys ("2", "10") first, in numeric order,
 * whatever order they were inserted in, so `JSON.parse('{"b":1,"10":2,"2":3}')` has
 * keys 2, 10, b. Where order carries meaning (a System One choice's options are
 * presented to the engine in the order the caller wrote them, and the first of two
 * equally likely options wins), that is a silent change of the question. So the
 * order is kept beside the object: `parseKeepingOrder` records the source order of
 * every object it parses, `inOrder` records the order of an object made here, and
 * `keysInOrder` / `stringifyInOrder` read and write objects in that order (any other
 * object in its own key order).
 *
 * The orders live in a WeakMap keyed by the object itself, so they go when the object
 * goes, and a copy of an object (a zod record is one) no longer has them.
 */

const ORDERS = new WeakMap<object, readonly string[]>();

/** The keys of `object` in the order recorded for it, else in its own order. */
export function keysInOrder(object: object): string[] {
  const recorded = ORDERS.get(object);
  return recorded ? [...recorded] : Object.keys(object);
}

/** `object`, recorded to have its keys in `keys`' order (which must be its own keys). */
export function inOrder<T extends object>(object: T, keys: readonly string[]): T {
  ORDERS.set(object, [...keys]);
  return object;
}

/** Whether `key` is one a JavaScript object lists first, in numeric order: an array index, "0" to "4294967294". */
export function isIndexKey(key: string): boolean {
  return /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4_294_967_295;
}

/** Whether an order is recorded for `object` (else it lists its keys in its own order). */
export function hasOrder(object: object): boolean {
  return ORDERS.has(object);
}

/**
 * An object of `entries`, its keys recorded in the entries' order when that is not the
 * order the object lists them in anyway (only index-like keys make them differ).
 */
export function orderedObject<V>(entries: ReadonlyArray<readonly [string, V]>): Record<string, V> {
  const object: Record<string, V> = {};
  for (const [key, value] of entries) {
    // Defined, not assigned: assigning "__proto__" would set the prototype rather than a member.
    if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
    else object[key] = value;
  }
  return entries.some(([key]) => isIndexKey(key)) ? inOrder(object, [...new Set(entries.map(([key]) => key))]) : object;
}

/**
 * `JSON.stringify(value)` (no replacer, no indentation), writing every object's keys
 * in their recorded order. Values JSON has no place for are left out as
 * `JSON.stringify` leaves them out (undefined members; undefined in arrays is null).
 */
export function stringifyInOrder(value: unknown): string {
  return write(value) ?? 'null';
}

function write(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => write(item) ?? 'null').join(',')}]`;
  const members: string[] = [];
  for (const key of keysInOrder(value)) {
    const written = write((value as Record<string, unknown>)[key]);
    if (written !== undefined) members.push(`${JSON.stringify(key)}:${written}`);
  }
  return `{${members.join(',')}}`;
}

/**
 * `JSON.parse(text)`, with every object's source key order recorded. JSON.parse
 * decides what is valid and makes the values (its errors are thrown as they are);
 * a scan of the same text then walks the result alongside it and records, for each
 * object, its keys as written (a key written twice keeps its first place and, as in
 * JSON.parse, its last value).
 */
export function parseKeepingOrder(text: string): unknown {
  const value: unknown = JSON.parse(text);
  recordOrders(text, value);
  return value;
}

/** An object or array being walked; `keys` and `seen` only for an object (a Set, since a body may hold many keys). */
type Frame = { container: unknown; keys: string[] | null; seen: Set<string>; index: number; key: string | undefined };

/**
 * Walks valid JSON `text` alongside `root`, its parsed value, without recursion (a
 * deeply nested body must not overflow the stack), recording each object's key order.
 */
function recordOrders(text: string, root: unknown): void {
  const stack: Frame[] = [];
  let i = 0;
  /** The parsed value the text at `i` stands for: the root, or the current member of the innermost frame. */
  const current = (): unknown => {
    const frame = stack[stack.length - 1];
    if (!frame) return root;
    const container = frame.container as Record<string, unknown> | unknown[] | null;
    if (container === null || typeof container !== 'object') return undefined;
    return frame.keys ? (container as Record<string, unknown>)[frame.key!] : (container as unknown[])[frame.index];
  };
  while (i < text.length) {
    const ch = text[i];
    if (ch === '{' || ch === '[') {
      stack.push({ container: current(), keys: ch === '{' ? [] : null, seen: new Set(), index: 0, key: undefined });
      i++;
    } else if (ch === '}' || ch === ']') {
      const frame = stack.pop()!;
      if (frame.keys && frame.container !== null && typeof frame.container === 'object') ORDERS.set(frame.container, frame.keys);
      i++;
    } else if (ch === ',') {
      const frame = stack[stack.length - 1];
      if (frame && !frame.keys) frame.index++;
      i++;
    } else if (ch === '"') {
      const end = stringEnd(text, i);
      const frame = stack[stack.length - 1];
      // In an object, a string followed by ':' is a key; any other string is a value.
      if (frame?.keys && nextSignificant(text, end) === ':') {
        const key = JSON.parse(text.slice(i, end)) as string;
        frame.key = key;
        if (!frame.seen.has(key)) {
          frame.seen.add(key);
          frame.keys.push(key);
        }
      }
      i = end;
    } else {
      // White space, ':', numbers, true, false, null: nothing to record.
      i++;
    }
  }
}

/** The index just past the string literal that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

function nextSignificant(text: string, from: number): string | undefined {
  let i = from;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  return text[i];
}
