import type { DecisionResponse } from '../contract/answer.js';
import { buildRequest, type RequestFlags } from './ask-request.js';
import { connect, explain, retryNotice } from './client-call.js';
import { CLIENT_EXIT } from './exit-codes.js';
import type { ConnectionFlags } from './config.js';
import { readContext } from './input.js';

export interface AskFlags extends RequestFlags, ConnectionFlags {
  context: string;
  json?: boolean;
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
  let notify: (message: string) => void = (message) => process.stderr.write(`decide: ${message}\n`);
  const connection = connect(flags, (event) => notify(retryNotice(event)));

  let response: DecisionResponse;
  try {
    if (flags.json) {
      const answer = await connection.client.raw.decide(request);
      // Exactly the API's body: a script parses what the service said, not our re-encoding.
      process.stdout.write(answer.text + '\n');
      response = answer.data;
    } else {
      const { present, terminalOf, decisionView } = await import('./ui/present.js');
      response = await present({
        terminal: terminalOf(),
        label: depth === 'stress' ? 'Stress-testing: reversed order, then each fact left out…' : 'Deciding…',
        work: (tell) => {
          notify = tell;
          return connection.client.decide(request);
        },
        view: decisionView,
      });
    }
  } catch (error) {
    throw explain(error, connection);
  }

  if (flags.failOn && tripsGate(flags.failOn, response.signal)) {
    process.stderr.write(`decide: the answer's signal is "${response.signal}" and --fail-on ${flags.failOn} was given\n`);
    process.exitCode = CLIENT_EXIT.gate;
  }
}
