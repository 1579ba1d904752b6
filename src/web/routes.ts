import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import {
  IN_WORDS,
  KeyNameChange,
  ServiceError,
  invalidRequest,
  PassCreate,
  type PassRecord,
  WebDecisionRequest,
} from '../contract/index.js';
import type { AppEnv } from '../http/env.js';
import { methodNotAllowed } from '../http/errors.js';
import { jsonBody } from '../http/json-body.js';
import type { Store } from '../ledger/store.js';
import type { DecisionService } from '../service/service.js';
import { mountAssets } from './assets.js';
import { COOKIE_MAX_AGE_S, PassCookies, REISSUE_AFTER_S } from './cookie.js';
import { noStore, pageHeaders } from './headers.js';
import { isHttps, sameOrigin } from './origin.js';
import { homePage } from './pages/home.js';
import { passPage } from './pages/pass.js';
import { PassDesk } from './passes.js';
import type { Verifier } from './verify/verifier.js';

/** What the browser's side needs besides the decision service. */
export interface WebOptions {
  store: Store;
  verifier: Verifier;
  /** Signs the pass cookie (DECIDE_COOKIE_SECRET, or the one the database keeps). */
  cookieSecret: string;
}

type WebEnv = { Variables: AppEnv['Variables'] & { pass: PassRecord } };

/**
 * The pages (`/`, `/pass`, their assets) and the cookie-authenticated routes of the
 * browser flow (docs/api.md, "Passes, keys and decisions from a browser"). Checks run
 * in the order given there, with the origin check first: route and method (404/405),
 * Origin (403), the pass cookie (401), the body (413/415/400), the request (400), the
 * site's limits (429), the charge and the engine.
 */
export function webRoutes(service: DecisionService, options: WebOptions): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const cookies = new PassCookies(options.cookieSecret);
  const desk = new PassDesk(options.store, service);
  const { verifier } = options;
  const origin = sameOrigin() as unknown as MiddlewareHandler<WebEnv>;
  const json = jsonBody as unknown as MiddlewareHandler<WebEnv>[]; // AppEnv's middleware, on WebEnv's wider variables

  const secure = (c: Context<WebEnv>) => isHttps(c.get('origin'));
  const issue = (c: Context, passId: string) =>
    setCookie(c, cookies.name(secure(c)), cookies.sign(passId, service.now()), {
      path: '/',
      httpOnly: true,
      secure: secure(c),
      sameSite: 'Strict',
      maxAge: COOKIE_MAX_AGE_S,
    });

  /** The pass the browser's cookie names, re-issued when a day old; null for no cookie, a forged one, or a pass gone. */
  async function currentPass(c: Context): Promise<PassRecord | null> {
    const now = service.now();
    const cookie = cookies.read(getCookie(c, cookies.name(secure(c))), now);
    const record = cookie && (await desk.record(cookie.passId));
    if (!cookie || !record) return null;
    if (now.getTime() / 1000 - cookie.issuedAt > REISSUE_AFTER_S) issue(c, record.passId);
    return record;
  }

  const requirePass: MiddlewareHandler<WebEnv> = async (c, next) => {
    const pass = await currentPass(c);
    if (!pass) {
      throw new ServiceError('pass_missing', 'this browser holds no valid pass; open the home page (/) to verify it');
    }
    c.set('pass', pass);
    await next();
  };

  /** POST /v1/pass may come without a body (verification `none`); one that comes is held to the JSON rules. */
  const optionalJson: MiddlewareHandler<WebEnv> = async (c, next) => {
    const empty = !c.req.header('content-type') && !c.req.header('transfer-encoding') && (c.req.header('content-length') ?? '0') === '0';
    if (empty) {
      c.set('body', {});
      return next();
    }
    const [limit, parse] = json;
    return limit(c, () => parse(c, next) as Promise<void>);
  };

  web.use('/v1/pass', noStore);
  web.use('/v1/keys', noStore);
  web.use('/v1/keys/*', noStore);
  web.use('/v1/web/*', noStore);

  web.post('/v1/pass', origin, optionalJson, async (c) => {
    const parsed = PassCreate.safeParse(c.get('body'), IN_WORDS);
    if (!parsed.success) throw invalidRequest(parsed.error);
    const held = await currentPass(c);
    if (held) return c.json(held, 200); // verified once per browser
    await verifier.verify(parsed.data.verificationToken, c.get('clientAddress'));
    const passId = await desk.createPass(c.get('clientIp'));
    issue(c, passId);
    return c.json(await desk.record(passId), 201);
  });
  web.get('/v1/pass', origin, requirePass, (c) => c.json(c.get('pass')));
  web.all('/v1/pass', methodNotAllowed(['GET', 'POST']));

  web.post('/v1/keys', origin, requirePass, async (c) => {
    const { passId } = c.get('pass');
    try {
      return c.json(await desk.createKey(passId, c.get('clientIp')), 201);
    } catch (error) {
      // A refusal removes a pass that held nothing; its cookie then names nothing.
      if (!(await desk.record(passId))) deleteCookie(c, cookies.name(secure(c)), { path: '/', secure: secure(c) });
      throw error;
    }
  });
  web.all('/v1/keys', methodNotAllowed(['POST']));
  web.delete('/v1/keys/:id', origin, requirePass, async (c) => c.json(await desk.revokeKey(c.get('pass').passId, c.req.param('id'))));
  web.patch('/v1/keys/:id', origin, requirePass, ...json, async (c) => {
    const parsed = KeyNameChange.safeParse(c.get('body'), IN_WORDS);
    if (!parsed.success) throw invalidRequest(parsed.error);
    return c.json(await desk.nameKey(c.get('pass').passId, c.req.param('id'), parsed.data.name));
  });
  web.all('/v1/keys/:id', methodNotAllowed(['DELETE', 'PATCH']));

  web.post('/v1/web/decisions', origin, requirePass, ...json, async (c) => {
    const parsed = WebDecisionRequest.safeParse(c.get('body'), IN_WORDS);
    if (!parsed.success) throw invalidRequest(parsed.error);
    const caller = await desk.payer(c.get('pass').passId, parsed.data.keyId);
    c.set('caller', caller); // the access log shows the paying key's hint
    const answer = await desk.decide(parsed.data, caller, c.get('clientIp'), c.get('startedAt'), c.get('requestId'));
    return c.body(answer.json, 200, { 'Content-Type': 'application/json' });
  });
  web.all('/v1/web/decisions', methodNotAllowed(['POST']));

  const assets = mountAssets(web);
  const headers = pageHeaders(verifier.widget);
  web.get('/', headers, async (c) => {
    const pass = await currentPass(c);
    return c.html(await homePage({ assets, verifier, pass, baseUrl: c.get('origin') }));
  });
  web.all('/', methodNotAllowed(['GET']));
  web.get('/pass', headers, async (c) => {
    const pass = await currentPass(c);
    const [log, dashboard] = pass ? await Promise.all([desk.recentDecisions(pass.passId), desk.dashboard(pass.passId)]) : [null, null];
    return c.html(await passPage({ assets, verifier, pass, dashboard, baseUrl: c.get('origin'), log }));
  });
  web.all('/pass', methodNotAllowed(['GET']));
  return web;
}
