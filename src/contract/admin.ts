import { z } from 'zod';
import { isKeyName, KEY_NAME_RULE } from './key-name.js';

/**
 * The operator's API (`/v1/admin/…`, docs/api.md "Operator API"): the keys and passes
 * of the ledger, behind the admin token rather than an API key. What the `decide key`
 * and `decide pass` commands show, in the same shapes as their `--json`.
 */

const instant = z.iso.datetime();

/** A key's name, given at creation (`decide key create --name`, or this API). */
export const KeyName = z.string().refine(isKeyName, KEY_NAME_RULE).meta({ description: 'What the key is for, as the operator named it.' });

export const KeyRecord = z
  .strictObject({
    id: z.string(),
    keyHint: z.string(),
    name: z.string().nullable(),
    passId: z.string(),
    createdAt: instant,
    lastUsedAt: instant
      .nullable()
      .meta({ description: 'When the key last paid a decision or read its usage, to within a minute; null if never.' }),
    revokedAt: instant.nullable(),
  })
  .meta({ id: 'AdminKey' });

export const AdminKeyList = z
  .strictObject({ keys: z.array(KeyRecord).meta({ description: 'Oldest first, revoked ones included.' }) })
  .meta({ id: 'AdminKeyList' });

export const AdminKeyCreate = z
  .strictObject({
    passId: z.string().min(1).optional().meta({ description: 'The pass the key draws on; a new pass when left out.' }),
    name: KeyName.optional(),
  })
  .meta({ id: 'AdminKeyCreate' });
export type AdminKeyCreate = z.infer<typeof AdminKeyCreate>;

export const AdminKeyCreated = z
  .strictObject({
    key: z.string().meta({ description: 'The API key, shown this once and never stored: hand it over now.' }),
    id: z.string(),
    keyHint: z.string(),
    name: z.string().nullable(),
    passId: z.string(),
    createdAt: instant,
  })
  .meta({ id: 'AdminKeyCreated' });

export const AdminKeyRevoked = z
  .strictObject({
    id: z.string(),
    keyHint: z.string(),
    revokedAt: instant,
    alreadyRevoked: z.boolean().meta({ description: 'True when the key was revoked before this call (revokedAt is then that time).' }),
  })
  .meta({ id: 'AdminKeyRevoked' });

export const AdminPass = z
  .strictObject({
    passId: z.string(),
    passCredits: z.int().min(0),
    fundedEver: z.boolean(),
    createdAt: instant,
    keys: z.int().min(0),
    activeKeys: z.int().min(0),
  })
  .meta({ id: 'AdminPass' });

export const AdminPassList = z
  .strictObject({ passes: z.array(AdminPass).meta({ description: 'Oldest first.' }) })
  .meta({ id: 'AdminPassList' });

export const AdminPassCreated = z.strictObject({ passId: z.string(), createdAt: instant }).meta({ id: 'AdminPassCreated' });

export const AdminPassDetail = z
  .strictObject({
    passId: z.string(),
    passCredits: z.int().min(0),
    fundedEver: z.boolean(),
    createdAt: instant,
    keys: z.array(z.strictObject({ id: z.string(), keyHint: z.string(), createdAt: instant, revokedAt: instant.nullable() })),
  })
  .meta({ id: 'AdminPassDetail' });
