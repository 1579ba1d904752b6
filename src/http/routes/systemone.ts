import { Hono } from 'hono';
import { ServiceError } from '../../contract/index.js';
import { type ModelList, SYSTEM_ONE_LIMITS, SystemOneRequest } from '../../contract/systemone.js';
import { jsonShapeProblem } from '../../contract/json-shape.js';
import { FormatValidation, validationIssues } from '../../contract/systemone-errors.js';
import type { DecisionService } from '../../service/service.js';
import { requireKey, UNAUTHORIZED } from '../auth.js';
import type { AppEnv } from '../env.js';
import { methodNotAllowed } from '../errors.js';
import { idempotencyKeyOf } from '../idempotency-key.js';
import { orderedJsonBody } from '../json-body.js';
import { paidContext, paidResponse } from '../paid-answer.js';
import { utcDay } from '../../contract/utc-day.js';

/** The Idempotency-Key, refused as the format refuses a bad header: 422, located in the header. */
function idempotencyKey(c: Parameters<typeof idempotencyKeyOf>[0]): string | undefined {
  try {
    return idempotencyKeyOf(c);
  } catch (error) {
    if (!(error instanceof ServiceError) || error.code !== 'invalid_request') throw error;
    throw new FormatValidation([
      { loc: ['header', 'idempotency-key'], msg: 'must be 1 to 255 printable ASCII characters', type: 'value_error' },
    ]);
  }
}

/**
 * decide as a System One provider: `POST /v1/systemone` answers the format's requests
 * with the configured engine, each question paid as one standard decision, and
 * `GET /v1/models` names the one model it answers with. Same keys as the API; the
 * format's error shapes and its request-id header (http/error-format.ts, which
 * picks them by path for every answer of these routes).
 */
export function systemOneRoutes(service: DecisionService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post('/v1/systemone', requireKey(service), ...orderedJsonBody(SYSTEM_ONE_LIMITS.bodyBytes), async (c) => {
    const body = c.get('body');
    // Before the schema: zod would overflow the stack on deep nesting and drop a "__proto__" key unchecked.
    const shape = jsonShapeProblem(body);
    if (shape) throw new FormatValidation([{ loc: ['body', ...shape.path], msg: shape.message, type: 'value_error' }]);
    const parsed = SystemOneRequest.safeParse(body);
    if (!parsed.success) throw new FormatValidation(validationIssues(parsed.error, body));
    // The body itself, now known to be valid, rather than zod's copy: its objects keep
    // the order they were written in (json/key-order.ts), which a copy loses.
    return paidResponse(c, await service.systemOne(body as SystemOneRequest, paidContext(c, idempotencyKey(c))));
  });
  app.all('/v1/systemone', methodNotAllowed(['POST']));

  // decide cannot know when the engine's model was released: the day this server began answering with it.
  // Whether the model was measured is read from the ledger when the server starts (`decide serve`).
  const models = JSON.stringify({
    models: [
      {
        name: service.model,
        description:
          `${service.model}, answered by decide's ${service.engineName} engine: noul, choice (2 to ${SYSTEM_ONE_LIMITS.options} ` +
          `options) and score (2 to ${SYSTEM_ONE_LIMITS.levels} levels) questions, up to ${SYSTEM_ONE_LIMITS.questions} a request, ` +
          'each paid as one standard decision.' +
          (service.measurement ? ` ${service.measurement}` : ''),
        release_date: utcDay(service.now()),
      },
    ],
  } satisfies ModelList);
  app.get('/v1/models', requireKey(service), async (c) => {
    // Nothing else here reads the ledger: a key revoked through another server is refused at once all the same.
    if (!(await service.isActive(c.get('caller')))) throw new ServiceError('unauthorized', UNAUTHORIZED);
    return c.body(models, 200, { 'Content-Type': 'application/json' });
  });
  app.all('/v1/models', methodNotAllowed(['GET']));
  return app;
}
