import { type LocalSettings, type ProviderSettings, engineSettings, engineTimeout, localThreads } from './engine.js';
import { setting, wholeNumber } from './parse.js';
import { type ProxySettings, proxyFromEnv } from './proxy.js';
import { dailyLimit, decisionLog, expiryMarginMs, retentionDays } from './schemas.js';
import { adminTokenFromEnv, metricsTokenFromEnv } from './tokens.js';
import { parseTrustProxy, type TrustProxy } from './trust-proxy.js';
import {
  DEFAULT_DECISION_RETENTION_DAYS,
  DEFAULT_EXPIRY_MARGIN_MS,
  DEFAULT_FREE_PER_IP,
  DEFAULT_FREE_PER_SITE,
  envRaw,
  type Env,
} from './variables.js';
import { webSettings, type WebSettings } from './web.js';
import type { DecisionLogLevel } from '../contract/decision-log.js';

/**
 * decide's configuration, typed: every setting `decide serve` runs on, read from the
 * environment (with the flags that stand for variables written over it) and checked,
 * each bad value an Error naming its variable.
 *
 * It is read once, at the edge (src/cli, src/server), and handed down as plain
 * options: nothing below the edge reads the process's environment
 * (test/config/edge.test.ts holds every file to it). So a mistake is found when the command starts, not at the first
 * request that happens to read it; every module says in its signature what it depends
 * on; and a test configures a module by passing it options, not by changing the
 * process's environment. The functions here take the environment as an argument and
 * never look it up themselves.
 *
 * Each command reads the sections it needs: `decide serve` all of them (readConfig),
 * `decide eval` its engine (readEngineConfig), the operator commands the site's
 * limits (siteLimits); the client commands read only their URL and key
 * (cli/config.ts). A bad variable of a section a command does not use never stops it.
 */
export interface Config {
  engine: EngineConfig;
  ledger: LedgerSettings;
  web: WebSettings;
  http: HttpSettings;
}

/** The engine and how it reaches its provider or model. */
export interface EngineConfig {
  settings: ProviderSettings | LocalSettings;
  /** `DECIDE_THREADS` for the local engine; absent, its own default. Read only when the local engine runs. */
  threads?: number;
  /** `DECIDE_ENGINE_TIMEOUT_MS`: the deadline of one decision, and of each engine call in it. */
  timeoutMs: number;
  /** The proxy of every outbound call: the engines', the model download's, verification's. */
  proxy: ProxySettings;
}

/** The site's free limits per UTC day (0 = no limit); the allowance per key is the contract's (service/limits.ts). */
export interface SiteLimits {
  freePerIp: number;
  freePerSite: number;
}

export interface LedgerSettings {
  limits: SiteLimits;
  /**
   * `DECIDE_EXPIRY_MARGIN_MS`: how long past the decision deadline a PostgreSQL
   * reservation (and a running idempotency record) outlives a server that died, before
   * any server gives it back. Small values let a chaos run recover quickly; in
   * production a margin shorter than the longest stall of a live server serves that
   * server's late decisions free.
   */
  expiryMarginMs: number;
  /** `DECIDE_DECISION_LOG` and `DECIDE_DECISION_LOG_RETENTION_DAYS`: what is logged of each decision, and for how long. */
  decisionLog: { level: DecisionLogLevel; retentionDays: number };
}

export interface HttpSettings {
  /** The operator API's token (config/tokens.ts); null: the operator API is off. */
  adminToken: string | null;
  /** Asked of `GET /metrics`; null: it answers anyone. */
  metricsToken: string | null;
  trustProxy: TrustProxy;
  /** `DECIDE_IPV6_PREFIX`: bits of an IPv6 address the per-IP limits count as one client. */
  ipv6Prefix: number;
}

/** Everything `decide serve` runs on; the first bad value throws an Error naming its variable. */
export function readConfig(env: Env): Config {
  const ledger = {
    limits: siteLimits(env),
    expiryMarginMs: expiryMargin(env),
    decisionLog: {
      level: setting(env, 'DECIDE_DECISION_LOG', decisionLog) ?? 'off',
      retentionDays: setting(env, 'DECIDE_DECISION_LOG_RETENTION_DAYS', retentionDays) ?? DEFAULT_DECISION_RETENTION_DAYS,
    },
  };
  const web = webSettings(env);
  const http = {
    adminToken: adminTokenFromEnv(env),
    metricsToken: metricsTokenFromEnv(env),
    trustProxy: parseTrustProxy(envRaw(env, 'DECIDE_TRUST_PROXY')),
    ipv6Prefix: setting(env, 'DECIDE_IPV6_PREFIX', wholeNumber(16, 128, 'a prefix length from 16 to 128 bits')) ?? 64,
  };
  return { engine: readEngineConfig(env), ledger, web, http };
}

/** The engine section alone: what `decide eval` and `decide calibrate` run on. */
export function readEngineConfig(env: Env): EngineConfig {
  const timeoutMs = engineTimeout(env);
  const settings = engineSettings(env);
  const threads = settings.kind === 'local' ? localThreads(env) : undefined;
  return { settings, threads, timeoutMs, proxy: proxyFromEnv(env) };
}

/** `DECIDE_FREE_PER_IP` and `DECIDE_FREE_PER_SITE`. */
export function siteLimits(env: Env): SiteLimits {
  return {
    freePerIp: setting(env, 'DECIDE_FREE_PER_IP', dailyLimit) ?? DEFAULT_FREE_PER_IP,
    freePerSite: setting(env, 'DECIDE_FREE_PER_SITE', dailyLimit) ?? DEFAULT_FREE_PER_SITE,
  };
}

/** `DECIDE_EXPIRY_MARGIN_MS` (LedgerSettings says what it bounds); 0 and up, in whole milliseconds. */
export function expiryMargin(env: Env): number {
  return setting(env, 'DECIDE_EXPIRY_MARGIN_MS', expiryMarginMs) ?? DEFAULT_EXPIRY_MARGIN_MS;
}
