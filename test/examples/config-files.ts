import fs from 'node:fs';
import path from 'node:path';

/**
 * The production examples read as the programs that use them read them: a systemd unit
 * and its EnvironmentFile, and nginx's directives. Only as much of each syntax as the
 * examples use; anything else is refused, so an example that outgrows the reader
 * fails its test rather than being misread.
 */

/** A systemd unit: every value of every key, by section, in order (a key may repeat). */
export function readUnit(file: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const [i, raw] of fs.readFileSync(file, 'utf8').split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(\w+)\]$/.exec(line);
    if (section) {
      sections.set(section[1], (current = new Map()));
      continue;
    }
    const entry = /^(\w+)=(.*)$/.exec(line);
    if (!entry || !current || line.endsWith('\\')) throw new Error(`${path.basename(file)}:${i + 1}: not read: ${line}`);
    current.set(entry[1], [...(current.get(entry[1]) ?? []), entry[2]]);
  }
  return sections;
}

/** An EnvironmentFile (and `Environment=` values): VARIABLE=value lines, comments skipped, quotes taken off. */
export function readEnvironment(lines: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const entry = /^([A-Za-z_]\w*)=(.*)$/.exec(line);
    if (!entry) throw new Error(`not an environment line: ${line}`);
    env[entry[1]] = entry[2].replace(/^"(.*)"$|^'(.*)'$/, '$1$2');
  }
  return env;
}

/** nginx's directives, `name args…;`, with the block they are in ('server' blocks are numbered in order: 'server#2'). */
export function readNginx(file: string): Array<{ block: string; name: string; args: string[] }> {
  const text = fs.readFileSync(file, 'utf8').replace(/#.*$/gm, '');
  const tokens = text.match(/"[^"]*"|[{};]|[^\s{};"]+/g) ?? [];
  const directives: Array<{ block: string; name: string; args: string[] }> = [];
  const stack: string[] = [];
  let servers = 0;
  let words: string[] = [];
  for (const token of tokens) {
    if (token === '{') {
      const [name, ...args] = words;
      stack.push(name === 'server' ? `server#${++servers}` : [name, ...args].join(' '));
      words = [];
    } else if (token === '}') {
      stack.pop();
    } else if (token === ';') {
      directives.push({ block: stack.join(' > '), name: words[0], args: words.slice(1).map((w) => w.replace(/^"(.*)"$/, '$1')) });
      words = [];
    } else words.push(token);
  }
  return directives;
}
