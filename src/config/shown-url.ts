/**
 * A URL as decide prints it, wherever it prints one: on a start line, in an error, in
 * a log line, on /metrics. URLs in settings carry secrets more often than not (a
 * `user:password@`, a `?token=` that some proxy or gateway reads), and a terminal,
 * a CI log or an agent's stderr capture is no place for them. So every command shows
 * a URL through here: the host and path stay, which is what a reader needs to find
 * the server; the password and every query parameter's value become `***`.
 *
 * It lives in config/ (floor 2 of ARCHITECTURE.md) so that every floor that prints a
 * URL can use it: net/, the client and the engines, the MCP bridge, the server and cli/.
 */

/** What stands for a secret in a shown URL. */
export const MASKED = '***';

/**
 * `value` with its secrets masked: `https://alice:***@host/path?token=***`. A user
 * name is kept beside a password (it says which account), but a user name alone is
 * masked, as that is how tokens are written into URLs (`https://TOKEN@host`). A
 * fragment is masked whole. Trailing slashes of the path are dropped, as the client
 * and the engines drop them. A value that is no URL is masked by its look alone.
 */
export function shownUrl(value: string | URL): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return maskedByLook(String(value));
  }
  // A URL the WHATWG parser takes but that has no authority (`mailto:`, `C:\models`) is shown by its look too.
  if (!url.host) return maskedByLook(String(value));
  const user = url.password ? `${url.username}:${MASKED}@` : url.username ? `${MASKED}@` : '';
  const path = url.pathname.replace(/\/+$/, '');
  const hash = url.hash ? `#${MASKED}` : '';
  return `${url.protocol}//${user}${url.host}${path}${maskedQuery(url.search)}${hash}`;
}

/**
 * `text` (an error's message, say) with the secrets of `url` masked wherever it
 * quotes them: the URL itself as shown by shownUrl, then its password, a lone user
 * name and its query values, as written and decoded. A query value shorter than 4
 * characters (`?v=1`) is a setting rather than a secret, and masking it everywhere
 * would garble the rest of the sentence (a `1` in every address).
 */
export function withoutUrlSecrets(text: string, url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return text;
  }
  let out = text;
  for (const form of new Set([String(url), parsed.href])) out = out.replaceAll(form, shownUrl(parsed));
  const secrets = [parsed.password, parsed.password ? '' : parsed.username];
  for (const part of parsed.search.slice(1).split('&')) {
    const at = part.indexOf('=');
    const value = at < 0 ? '' : part.slice(at + 1);
    if (value.length >= 4) secrets.push(value);
  }
  const forms = secrets.flatMap((secret) => [secret, decoded(secret), decoded(secret.replaceAll('+', ' '))]);
  for (const secret of new Set(forms)) if (secret) out = out.replaceAll(secret, MASKED);
  return out;
}

/** `?a=1&b` → `?a=***&b`: names stay (they say what was set), values go. */
function maskedQuery(search: string): string {
  if (search.length <= 1) return '';
  const parts = search
    .slice(1)
    .split('&')
    .map((part) => {
      const at = part.indexOf('=');
      return at < 0 || at === part.length - 1 ? part : `${part.slice(0, at + 1)}${MASKED}`;
    });
  return `?${parts.join('&')}`;
}

/**
 * `value` as written, with what looks like a password, a lone user name, a query value
 * or a fragment masked by the same rules as shownUrl: for a setting's value quoted in
 * "got …", where the reader looks for their typo in what they typed, and for what no
 * URL parser takes.
 */
export function maskedByLook(value: string): string {
  return value
    .replace(/\/\/([^/?#@\s:]*):[^/?#@\s]*@/g, `//$1:${MASKED}@`)
    .replace(/\/\/[^/?#@\s:]+@/g, `//${MASKED}@`)
    .replace(/([?&][^=&#\s]+=)[^&#\s]+/g, `$1${MASKED}`)
    .replace(/#\S+$/, `#${MASKED}`);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
