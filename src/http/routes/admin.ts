import { Hono } from 'hono';
import { AdminKeyCreate } from '../../contract/admin.js';
import { IN_WORDS, invalidRequest, ServiceError } from '../../contract/index.js';
import type { Store } from '../../ledger/store.js';
import { revokeByRef } from '../../ledger/revoke-ref.js';
import { requireToken } from '../bearer-token.js';
import type { AppEnv } from '../env.js';
import { methodNotAllowed } from '../errors.js';
import { jsonBody } from '../json-body.js';

export interface AdminOptions {
  store: Store;
  /** The admin token (config/tokens.ts). */
  token: string;
  clock?: () => Date;
}

const noPass = (passId: string) => new ServiceError('not_found', `no pass ${passId}`);

/**
 * The operator API: what `decide key` and `decide pass` do, over HTTP, so a team can
 * manage keys without a shell on the server. Behind the admin token (never an API
 * key); without options (no token set), every route says how to turn it on. Funding stays with the CLI: a
 * funding moves money, and a retried HTTP call must never fund twice.
 */
export function adminRoutes(options: AdminOptions | undefined): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  if (options === undefined) {
    app.all('/v1/admin/*', () => {
      throw new ServiceError(
        'not_found',
        'the operator API is off on this server: set DECIDE_ADMIN_TOKEN (or DECIDE_ADMIN_TOKEN_FILE) to turn it on',
      );
    });
    return app;
  }
  const { store, token } = options;
  const now = options.clock ?? (() => new Date());
  app.use('/v1/admin/*', requireToken(token, 'the admin token'));

  app.get('/v1/admin/keys', async (c) => {
    const passId = c.req.query('pass');
    if (passId !== undefined && !(await store.passes.show(passId))) throw noPass(passId);
    // This server's own recent uses first, so the listing is current for them.
    await store.keys.flushUse().catch(() => undefined);
    return c.json({ keys: await store.keys.list({ passId }) });
  });
  const [limit, parse] = jsonBody;
  app.post('/v1/admin/keys', limit, parse, async (c) => {
    const parsed = AdminKeyCreate.safeParse(c.get('body'), IN_WORDS);
    if (!parsed.success) throw invalidRequest(parsed.error);
    const { passId, name } = parsed.data;
    if (passId !== undefined && !(await store.passes.show(passId))) throw noPass(passId);
    const created = await store.keys.create(now(), passId, name);
    return c.json(
      {
        key: created.key,
        id: created.keyId,
        keyHint: created.keyHint,
        name: name ?? null,
        passId: created.passId,
        createdAt: created.createdAt,
      },
      201,
    );
  });
  app.all('/v1/admin/keys', methodNotAllowed(['GET', 'POST']));

  app.delete('/v1/admin/keys/:ref', async (c) => {
    const ref = c.req.param('ref');
    const outcome = await revokeByRef(store, ref, now());
    switch (outcome.kind) {
      case 'invalid':
        throw new ServiceError(
          'invalid_request',
          'key: give its id (key_…) or its hint (dcd_api_…wxyz, or its last four characters)',
          undefined,
          [{ field: 'key', message: 'names no key' }],
        );
      case 'unknown':
        throw new ServiceError('not_found', `no key ${ref}`);
      case 'ambiguous':
        throw new ServiceError(
          'invalid_request',
          `key: the hint ${ref} is shared by ${outcome.ids.length} keys (${outcome.ids.join(', ')}); revoke by id`,
          undefined,
          [{ field: 'key', message: 'is shared by several keys' }],
        );
    }
    return c.json({
      id: outcome.key.id,
      keyHint: outcome.key.keyHint,
      revokedAt: outcome.revokedAt,
      alreadyRevoked: outcome.kind === 'already',
    });
  });
  app.all('/v1/admin/keys/:ref', methodNotAllowed(['DELETE']));

  app.get('/v1/admin/passes', async (c) => c.json({ passes: await store.passes.list() }));
  app.post('/v1/admin/passes', async (c) => c.json(await store.passes.create(now()), 201));
  app.all('/v1/admin/passes', methodNotAllowed(['GET', 'POST']));

  app.get('/v1/admin/passes/:id', async (c) => {
    const pass = await store.passes.show(c.req.param('id'));
    if (!pass) throw noPass(c.req.param('id'));
    return c.json(pass);
  });
  app.all('/v1/admin/passes/:id', methodNotAllowed(['GET']));
  return app;
}
