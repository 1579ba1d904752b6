import { keyHint } from '../contract/key.js';
import { connect, explain, type Notice, retryWait } from './client-call.js';
import { CLIENT_EXIT, Failure } from './exit-codes.js';
import { shownUrl, type ConnectionFlags } from './config.js';
import { confirm } from './input.js';
import { clockWords } from './when.js';

export interface UsageFlags extends ConnectionFlags {
  json?: boolean;
}

/** `decide usage`: today's free allowance and the pass's credits. */
export async function runUsage(flags: UsageFlags): Promise<void> {
  let notify: (notice: Notice) => void = (notice) => process.stderr.write(`decide: ${notice.say()}\n`);
  const connection = connect(flags, (event) => notify(retryWait(event)));
  try {
    if (flags.json) {
      process.stdout.write((await connection.client.raw.usage()).text + '\n');
      return;
    }
    const { present, terminalOf, usageView } = await import('./ui/present.js');
    await present({
      terminal: terminalOf(),
      label: 'Fetching usage…',
      work: (tell) => {
        notify = tell;
        return connection.client.usage();
      },
      view: usageView,
    });
  } catch (error) {
    throw explain(error, connection);
  }
}

export interface RevokeFlags extends ConnectionFlags {
  json?: boolean;
  yes?: boolean;
}

/**
 * `decide revoke`: revokes the configured key. It cannot be undone, so it asks first
 * on a terminal, and without a terminal to ask on it wants `--yes`.
 */
export async function runRevoke(flags: RevokeFlags): Promise<void> {
  const connection = connect(flags);
  const hint = keyHint(connection.key);
  if (!flags.yes) {
    if (!process.stdin.isTTY) {
      throw new Failure('refusing to revoke without --yes: standard input is not a terminal to confirm on', CLIENT_EXIT.usage);
    }
    const sure = await confirm(`Revoke the key ${hint} at ${shownUrl(connection.url)}? Every later call with it is refused. [y/N] `);
    if (!sure) throw new Failure(`not revoked: ${hint} stays active`, CLIENT_EXIT.usage);
  }
  try {
    const answer = await connection.client.raw.revoke();
    if (flags.json) process.stdout.write(answer.text + '\n');
    else
      process.stdout.write(
        `Revoked ${answer.data.keyHint} at ${clockWords(answer.data.revokedAt)}; calls with this key are now refused (401).\n`,
      );
  } catch (error) {
    throw explain(error, connection);
  }
}
