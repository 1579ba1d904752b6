import { randomUUID } from 'node:crypto';
import type { DecisionResponse } from '../contract/answer.js';
import { buildRequest, type RequestFlags } from './ask-request.js';
import { connect, explain, type Notice, retryWait } from './client-call.js';
import { CLIENT_EXIT, Failure } from './exit-codes.js';
import { parseSetting } from '../config/parse.js';
import { IdempotencyKey } from '../contract/records.js';
import type { ConnectionFlags } from './config.js';
import { readContext } from './input.js';
import { listenForInterrupt } from './interrupt.js';

export interface AskFlags extends RequestFlags, ConnectionFlags {
  context: string;
  json?: boolean;
  /** The Idempotency-Key to send (`--idempotency-key`); a random one by default. */
  idempotencyKey?: string;
}

/**
 * `--fail-on no`: a `no` answer fails the step. `--fail-on unclear`: anything but a clear
 * `yes` fails it (unclear, needs-context, no): the gate of "proceed only on a yes".
 */
export function tripsGate(failOn: 'no' | 'unclear', signal: DecisionResponse['signal']): boolean {
  return failOn === 'no' ? signal === 'no' : signal !== 'yes';
}

/** `decide ask` and `decide stress`: one decision, printed as JSON or for people. */
export async function runAsk(words: string[], flags: AskFlags, depth: 'standard' | 'stress'): Promise<void> {
  const request = buildRequest(words.join(' '), await readContext(flags.context), flags, depth);
  let notify: (notice: Notice) => void = (notice) => process.stderr.write(`decide: ${notice.say()}\n`);
  const connection = connect(flags, (event) => notify(retryWait(event)));
  // Chosen here, not by the client, so an interrupted decision can be replayed with it.
  const idempotencyKey = flags.idempotencyKey === undefined ? randomUUID() : checkedKey(flags.idempotencyKey);
  const interrupt = listenForInterrupt();
  let replayed = false;
  const call = async () => {
    const answer = await connection.client.raw.decide(request, { idempotencyKey, signal: interrupt.signal });
    replayed = answer.replayed;
    return answer;
  };

  let response: DecisionResponse;
  try {
    if (flags.json) {
      const answer = await call();
      // Exactly the API's body: a script parses what the service said, not our re-encoding.
      process.stdout.write(answer.text + '\n');
      response = answer.data;
    } else {
      const { present, terminalOf, decisionView } = await import('./ui/present.js');
      response = await present({
        terminal: terminalOf(),
        label: depth === 'stress' ? 'Stress-testing: reversed order, then each fact left out…' : 'Deciding…',
        work: async (tell) => {
          notify = tell;
          return (await call()).data;
        },
        view: decisionView,
        onInterrupt: interrupt.abort,
      });
    }
  } catch (error) {
    throw interrupt.signal.aborted ? interrupt.failure(idempotencyKey) : explain(error, connection);
  } finally {
    interrupt.dispose();
  }
  if (replayed) process.stderr.write(`decide: the answer of --idempotency-key ${idempotencyKey}, replayed: not charged again\n`);

  if (flags.failOn && tripsGate(flags.failOn, response.signal)) {
    process.stderr.write(`decide: the answer's signal is "${response.signal}" and --fail-on ${flags.failOn} was given\n`);
    process.exitCode = CLIENT_EXIT.gate;
  }
}

/** `--idempotency-key`, checked against the contract's rule before anything is sent (exit 2). */
function checkedKey(value: string): string {
  try {
    return parseSetting('--idempotency-key', value, IdempotencyKey);
  } catch (error) {
    throw new Failure((error as Error).message, CLIENT_EXIT.usage);
  }
}
