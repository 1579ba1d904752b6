import { z } from 'zod';
import { KeyName } from './admin.js';
import { ChoiceRequest, NoulRequest, ScoreRequest } from './decision.js';

/**
 * The browser's side of the contract (docs/api.md, "Passes, keys and decisions from a
 * browser"): the pass, key creation and web decisions. These
 * routes are authenticated by the pass cookie and answer only the server's own origin.
 */

const instant = z.iso.datetime();
const keyId = z
  .string()
  .regex(/^key_[0-9A-Za-z]{22}$/, "must be the id of one of the pass's active keys")
  .meta({ description: "The id of one of the pass's active keys (from GET /v1/pass)." });

/** Body of `POST /v1/pass`; the body may be left out altogether when verification is `none`. */
export const PassCreate = z
  .strictObject({
    verificationToken: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(8192, 'is too long')
      .optional()
      .meta({ description: "The verification widget's token; not required when the server's verification is `none`." }),
  })
  .meta({ id: 'PassCreate' });
export type PassCreate = z.infer<typeof PassCreate>;

export const PassKey = z.strictObject({
  id: z.string(),
  keyHint: z.string(),
  createdAt: instant,
  revokedAt: instant.nullable(),
  freeUsed: z.int().min(0).meta({ description: "The key's free decisions used today (UTC)." }),
});
export type PassKey = z.infer<typeof PassKey>;

/** Body of `GET /v1/pass`, and of `POST /v1/pass`. */
export const PassRecord = z
  .strictObject({
    passId: z.string(),
    passCredits: z.int().min(0),
    fundedEver: z.boolean().meta({ description: 'True once an operator has funded the pass.' }),
    keys: z.array(PassKey).meta({ description: 'Oldest first, revoked ones included.' }),
    freeLimit: z.int().min(0),
    day: z.iso.date().meta({ description: 'The UTC day `freeUsed` counts.' }),
  })
  .meta({ id: 'PassRecord' });
export type PassRecord = z.infer<typeof PassRecord>;

/** Body of the 201 of `POST /v1/keys`: the key, shown this once. */
export const KeyCreated = z
  .strictObject({
    id: z.string(),
    key: z.string().meta({ description: 'The API key. It is shown once and never stored: keep it.' }),
    keyHint: z.string(),
    createdAt: instant,
  })
  .meta({ id: 'KeyCreated' });
export type KeyCreated = z.infer<typeof KeyCreated>;

/** Body of `PATCH /v1/keys/{id}`: the key's new name, or null to clear it; nothing else of a key changes. */
export const KeyNameChange = z.strictObject({ name: KeyName.nullable() }).meta({ id: 'KeyNameChange' });
export type KeyNameChange = z.infer<typeof KeyNameChange>;

/** Body of the 200 of `PATCH /v1/keys/{id}`. */
export const KeyNamed = z.strictObject({ id: z.string(), name: z.string().nullable() }).meta({ id: 'KeyNamed' });
export type KeyNamed = z.infer<typeof KeyNamed>;

/** Body of `POST /v1/web/decisions`: a DecisionRequest plus the key that pays. */
export const WebDecisionRequest = z
  .discriminatedUnion('mode', [ChoiceRequest.extend({ keyId }), NoulRequest.extend({ keyId }), ScoreRequest.extend({ keyId })], {
    error: (issue) => (issue.code === 'invalid_union' ? 'must be one of choice, noul, score' : undefined),
  })
  .meta({ id: 'WebDecisionRequest' });
export type WebDecisionRequest = z.infer<typeof WebDecisionRequest>;
