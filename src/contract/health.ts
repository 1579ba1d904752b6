import { z } from 'zod';

/** `GET /healthz`: the process answers. */
export const Health = z.strictObject({ status: z.literal('ok') }).meta({ id: 'Health' });

const check = z.enum(['ok', 'failing', 'starting']);

/** `GET /readyz`: 200 when every check is ok, 503 otherwise (and while the server starts). */
export const Readiness = z
  .strictObject({
    status: z.enum(['ready', 'not_ready', 'starting']),
    checks: z.strictObject({
      ledger: check.meta({ description: 'The ledger takes a write now.' }),
      engine: check.meta({
        description: 'The engine is loaded (local) or answers its models list (a provider; checked at most every 10 s).',
      }),
    }),
  })
  .meta({ id: 'Readiness' });
