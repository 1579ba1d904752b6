import { hasInvisible } from './text.js';

/** The longest key name: enough for "ci runner of team payments (staging)", short enough for a table. */
export const MAX_KEY_NAME = 100;

export const KEY_NAME_RULE = `1 to ${MAX_KEY_NAME} characters, without control or invisible characters or surrounding spaces`;

/**
 * A key's name as the operator or the pass's holder typed it, shown in tables and on
 * the pass page: refused rather than cleaned when it holds what a reader cannot see
 * as written. A bidirectional control would show "\u202egnp.exe" as "exe.png", zero-width
 * characters would make a blank or look-alike name; control characters break a table's
 * line. One rule for the API (contract/admin.ts) and the ledger (ledger/rules.ts).
 */
export function isKeyName(name: string): boolean {
  const length = [...name].length;
  return length >= 1 && length <= MAX_KEY_NAME && !/[\u0000-\u001f\u007f-\u009f]/.test(name) && !hasInvisible(name) && name.trim() === name;
}
