import { z } from 'zod';

const day = z.iso.date().meta({ description: 'The current UTC day.' });

export const Usage = z
  .strictObject({
    day,
    freeLimit: z.int().min(0),
    freeUsed: z.int().min(0),
    freeRemaining: z.int().min(0),
    passCredits: z.int().min(0),
    resetsAt: z.iso.datetime().meta({ description: 'The next UTC midnight, when the free allowance resets.' }),
  })
  .meta({ id: 'Usage' });
export type Usage = z.infer<typeof Usage>;

const group = z.strictObject({
  samples: z.int().min(0),
  meanMs: z.int().min(0).nullable(),
  uncharged: z
    .int()
    .min(0)
    .meta({ description: 'Decisions of the samples served without a charge (their reservation given back before they finished).' }),
});
export const Metrics = z.strictObject({ day, overall: group, web: group, api: group }).meta({ id: 'Metrics' });
export type Metrics = z.infer<typeof Metrics>;
export type MetricsGroup = z.infer<typeof group>;

export const KeyRevoked = z
  .strictObject({ revoked: z.literal(true), keyHint: z.string(), revokedAt: z.iso.datetime() })
  .meta({ id: 'KeyRevoked' });
export type KeyRevoked = z.infer<typeof KeyRevoked>;

/** `Idempotency-Key`: 1 to 255 printable ASCII characters. */
export const IdempotencyKey = z.string().regex(/^[\x20-\x7e]{1,255}$/, '1 to 255 printable ASCII characters');
