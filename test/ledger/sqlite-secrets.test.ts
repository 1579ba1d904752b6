import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyFingerprint } from '../../src/contract/key.js';
import type { SqliteStore } from '../../src/ledger/sqlite/store.js';
import type { CreatedKey } from '../../src/ledger/store.js';
import { cleanup, dbPath, IP, NOW, open, tempDir } from './helpers.js';

let dir: string;
let store: SqliteStore;

beforeEach(() => {
  dir = tempDir();
  store = open(dir);
});
afterEach(async () => {
  await store.close();
  cleanup(dir);
});

/** The bytes of the database file and, while open, its WAL and shared-memory index. */
function fileBytes(): Buffer {
  const files = [dbPath(dir), `${dbPath(dir)}-wal`, `${dbPath(dir)}-shm`].filter((f) => fs.existsSync(f));
  return Buffer.concat(files.map((f) => fs.readFileSync(f)));
}

describe('what reaches the disk', () => {
  it('the key never appears in the database file, its WAL or its shm; its fingerprint does', async () => {
    const keys: CreatedKey[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await store.keys.create(new Date(), i === 0 ? undefined : keys[0].passId);
      keys.push(created);
      const caller = await store.keys.authenticate(keyFingerprint(created.key));
      expect(caller?.keyId).toBe(created.keyId);
      await store.charges.reserve({ caller: caller!, depth: 'standard', ip: IP }, NOW);
    }
    await store.keys.revoke(keys[2].keyId, NOW);

    const check = (bytes: Buffer) => {
      for (const { key, keyHint } of keys) {
        expect(bytes.includes(Buffer.from(key, 'utf8'))).toBe(false);
        expect(bytes.includes(Buffer.from(key.slice('dcd_api_'.length, -6), 'utf8'))).toBe(false); // the secret part
        expect(bytes.includes(Buffer.from(key, 'utf16le'))).toBe(false);
        // Positive controls: we are reading the right bytes.
        expect(bytes.includes(keyFingerprint(key))).toBe(true);
        expect(bytes.includes(Buffer.from(keyHint, 'utf8'))).toBe(true);
      }
    };
    // While open, the new rows live in the WAL.
    expect(fs.existsSync(`${dbPath(dir)}-wal`)).toBe(true);
    expect(fs.statSync(`${dbPath(dir)}-wal`).size).toBeGreaterThan(0);
    check(fileBytes());
    // After close, everything is checkpointed into the main file.
    await store.close();
    check(fileBytes());
  });
});
