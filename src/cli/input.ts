import fs from 'node:fs';
import readline from 'node:readline/promises';
import { CLIENT_EXIT, Failure } from './exit-codes.js';

/**
 * `--context`: literal text, `@path` for a file's content, or `-` for standard input
 * (piped, or typed and ended with Ctrl-D). Text beginning with `@` is always a file
 * name: put such a context in a file.
 */
export async function readContext(value: string, stdin: NodeJS.ReadableStream = process.stdin): Promise<string> {
  if (value === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return Buffer.concat(chunks).toString('utf8');
  }
  if (value.startsWith('@')) {
    const file = value.slice(1);
    try {
      return fs.readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new Failure(`--context: cannot read the file ${file} (${code})`, CLIENT_EXIT.usage);
    }
  }
  return value;
}

/** Asks on the terminal; only "y" or "yes" confirms. */
export async function confirm(question: string): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^\s*y(es)?\s*$/i.test(await rl.question(question));
  } finally {
    rl.close();
  }
}
