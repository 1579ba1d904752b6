import { KEY_PREFIX } from '../contract/key.js';

/**
 * How an operator names a key: by its id (`key_…`), by its hint as `key list` shows
 * it (`dcd_api_…wxyz`; `dcd_api_...wxyz` too, the ellipsis as a shell user types it),
 * or by the hint's last four characters. Both stores match on what this returns.
 */
export type KeyRef = { id: string } | { hint: string };

export function parseKeyRef(ref: string): KeyRef | null {
  const text = ref.trim();
  if (/^key_[0-9A-Za-z]{22}$/.test(text)) return { id: text };
  const tail = /^(?:dcd_api_(?:…|\.\.\.))?([0-9A-Za-z]{4})$/.exec(text);
  return tail ? { hint: `${KEY_PREFIX}…${tail[1]}` } : null;
}
