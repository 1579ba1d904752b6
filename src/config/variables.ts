/**
 * Every environment variable decide reads, in one table: what it does and its default.
 * The Configuration table of docs/configuration.md is checked against this one by a test, so a new
 * variable is added here first. This module imports nothing: `decide --help` loads it
 * (the flags' defaults come from here) and must load only commander. The parsers,
 * which need zod, are in ./schemas.ts (and ./parse.ts, the one way to read them);
 * ./config.ts reads them into the typed configuration the commands hand down.
 */

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_DB = './decide.db';
/** The address `decide serve` listens on by default, where the client commands look first. */
export const DEFAULT_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_ENGINE_TIMEOUT_MS = 30_000;
export const DEFAULT_EXPIRY_MARGIN_MS = 60_000;
export const DEFAULT_DECISION_RETENTION_DAYS = 30;
export const DEFAULT_FREE_PER_IP = 200;
export const DEFAULT_FREE_PER_SITE = 50_000;
/** The most `--threads` / `DECIDE_THREADS` takes: far beyond any CPU llama.cpp runs on. */
export const MAX_THREADS = 256;

export interface Variable {
  /** What setting it does, in one sentence. */
  readonly does: string;
  /** The default as docs/configuration.md states it; absent where there is none worth stating. */
  readonly default?: string;
  /** The `decide serve` flag that takes precedence over it, if any. */
  readonly flag?: string;
  /** A key, a secret or a URL that may carry a password: never echoed in a message. */
  readonly secret?: boolean;
}

export const VARIABLES = {
  DECIDE_PORT: { does: 'Port `decide serve` listens on (0 = any free port).', default: String(DEFAULT_PORT), flag: '--port' },
  DECIDE_HOST: { does: 'Address `decide serve` binds.', default: DEFAULT_HOST, flag: '--host' },
  DECIDE_DB: { does: 'The ledger: a SQLite file or a postgres:// URL.', default: DEFAULT_DB, flag: '--db' },
  DECIDE_DATABASE_URL: {
    does: 'The ledger when DECIDE_DB and --db are unset; keeps a postgres:// URL out of `ps`.',
    default: DEFAULT_DB,
    secret: true,
  },
  DECIDE_ENGINE: { does: 'The engine: local, openai, systemone or anthropic.', default: 'local' },
  DECIDE_MODEL: { does: "A GGUF file for the local engine, or the provider's model name.", flag: '--model' },
  DECIDE_DEFAULT_MODEL_URL: { does: 'A mirror of the default local model, for closed networks (the checksum still has to match).' },
  DECIDE_THREADS: { does: `llama.cpp threads of the local engine, 1 to ${MAX_THREADS}.`, flag: '--threads' },
  OPENAI_BASE_URL: { does: 'The OpenAI-compatible server of the openai engine.', default: DEFAULT_OPENAI_BASE_URL },
  OPENAI_API_KEY: { does: "The openai engine's key; required only for api.openai.com.", secret: true },
  DECIDE_OPENAI_PROBABILITIES: { does: 'How the openai engine gets probabilities: logprobs, or verbalized.', default: 'logprobs' },
  DECIDE_DEBIAS: { does: 'Order debiasing: none, reverse or cyclic.', flag: '--debias' },
  ANTHROPIC_API_KEY: { does: "The anthropic engine's key (a key alone never selects that engine).", secret: true },
  ANTHROPIC_BASE_URL: { does: "The anthropic engine's server.", default: DEFAULT_ANTHROPIC_BASE_URL },
  DECIDE_SYSTEMONE_URL: { does: 'The System One server root; set alone, it selects the systemone engine.' },
  DECIDE_SYSTEMONE_API_KEY: { does: "The System One server's key, if it needs one.", secret: true },
  DECIDE_ENGINE_TIMEOUT_MS: {
    does: 'Deadline of one decision, and of each engine call in it (ms).',
    default: String(DEFAULT_ENGINE_TIMEOUT_MS),
  },
  DECIDE_EXPIRY_MARGIN_MS: {
    does: 'How long past that deadline a reservation nobody settled is kept (ms).',
    default: String(DEFAULT_EXPIRY_MARGIN_MS),
  },
  DECIDE_DECISION_LOG: {
    does: "The decision log: off, metadata (each decision's time, key id, channel, mode, depth, credits, signal, top answer) or full (also its question, context, options and answer).",
    default: 'off',
  },
  DECIDE_DECISION_LOG_RETENTION_DAYS: {
    does: 'Days the decision log keeps an entry before it is swept (a positive whole number).',
    default: String(DEFAULT_DECISION_RETENTION_DAYS),
  },
  DECIDE_FREE_PER_IP: { does: 'Free decisions per client IP per UTC day (0 = no limit).', default: String(DEFAULT_FREE_PER_IP) },
  DECIDE_FREE_PER_SITE: { does: 'Free decisions over the site per UTC day (0 = no limit).', default: String(DEFAULT_FREE_PER_SITE) },
  DECIDE_TRUST_PROXY: {
    does: 'The proxies in front: a hop count, or their addresses/CIDRs; the client IP is read from the right of X-Forwarded-For past them.',
    default: 'off',
  },
  DECIDE_IPV6_PREFIX: { does: 'Bits of an IPv6 address the per-IP limits count as one client.', default: '64' },
  DECIDE_VERIFY: { does: 'Browser verification before a pass: none, turnstile or hcaptcha.', default: 'none' },
  DECIDE_VERIFY_SITE_KEY: { does: "The verification widget's site key." },
  DECIDE_VERIFY_SECRET: { does: "The verification provider's secret (environment only).", secret: true },
  DECIDE_VERIFY_URL: { does: "The provider's siteverify URL, for tests against a fake." },
  DECIDE_COOKIE_SECRET: { does: 'Signs the pass cookie, at least 32 characters; else one is kept in the database.', secret: true },
  DECIDE_PUBLIC_URL: { does: 'The origin browsers use, when a proxy in front makes it differ.' },
  DECIDE_URL: { does: 'Where the client commands and `decide mcp` find the service.', default: DEFAULT_URL, flag: '--url' },
  DECIDE_API_KEY: { does: 'The API key of the client commands and `decide mcp` (never a flag, which `ps` shows).', secret: true },
  DECIDE_ADMIN_TOKEN: {
    does: 'Turns the operator API (/v1/admin) on: the token it takes, at least 32 characters.',
    default: 'off',
    secret: true,
  },
  DECIDE_ADMIN_TOKEN_FILE: { does: 'The same token read from a file (a mounted secret), instead of DECIDE_ADMIN_TOKEN.' },
  DECIDE_METRICS_TOKEN: {
    does: 'When set, GET /metrics asks for it as a Bearer token, at least 32 characters.',
    default: 'public',
    secret: true,
  },
  DECIDE_WEB: { does: 'on, or off: no pages and no key creation from a browser.', default: 'on' },
  HTTPS_PROXY: { does: 'The proxy for https:// calls of the engines, the model download and verification (https_proxy too).' },
  HTTP_PROXY: { does: 'The proxy for http:// calls, and for https:// ones when HTTPS_PROXY is unset (http_proxy too).' },
  NO_PROXY: { does: 'Hosts reached directly, comma-separated (no_proxy too).' },
} as const satisfies Record<string, Variable>;

export type VariableName = keyof typeof VARIABLES;

export type Env = Record<string, string | undefined>;

/** A variable's value exactly as set, for secrets whose every character counts. */
export function envRaw(env: Env, name: VariableName): string | undefined {
  return env[name];
}

/**
 * A variable's value, trimmed; blank counts as unset. Typed by the table, so reading
 * a variable it does not list fails to compile.
 */
export function envValue(env: Env, name: VariableName): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}
