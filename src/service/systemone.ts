import { contentText, type SystemOneRequest, type SystemOneResponse } from '../contract/systemone.js';
import { askEach, type EachRead } from '../decision/ask-each.js';
import type { Scalings } from '../decision/scaling.js';
import { systemOneAnswer, systemOneQuestion } from '../decision/systemone.js';
import type { AskContext, Engine } from '../engine/engine.js';
import { keysInOrder, orderedObject, stringifyInOrder } from '../json/key-order.js';
import type { PaidWork } from './paid.js';
import type { Debias } from '../contract/debias.js';

/**
 * A System One request as paid work: every question is one standard decision, all
 * reserved together, and every one answered or the request fails whole, charged
 * nothing. The engine reads the caller's own wording (cleaned as every text of a
 * decision is), options and questions in the order the caller wrote them; the answer
 * carries the caller's own ids and option names, spelled and ordered as sent.
 *
 * `request` must be the body as parsed by json/key-order.ts (validated, not a copy):
 * its objects carry the order they were written in, which a copy would lose.
 */
export function systemOneWork(
  request: SystemOneRequest,
  engine: Engine,
  options: { debias: Debias; scalings: Scalings; call?: AskContext },
): PaidWork<SystemOneResponse, EachRead> {
  const ids = keysInOrder(request.questions);
  const own = new Map(ids.map((id) => [id, systemOneQuestion(request.questions[id])]));
  // What the answer depends on, in the order written: a retry with its options reordered asks something else.
  const fingerprint = stringifyInOrder({ route: 'systemone', model: request.model, state: request.state, questions: request.questions });
  return {
    route: 'systemone',
    request,
    fingerprint,
    depth: 'standard',
    units: ids.length,
    async run(signal) {
      const read = await askEach(contentText(request.state), own, engine, { signal, ...options });
      return { made: read, units: ids.length };
    },
    respond: (read) => ({
      model: engine.model,
      answers: orderedObject(ids.map((id) => [id, systemOneAnswer(request.questions[id], own.get(id)!, read.readings.get(id)!)])),
      // Decide reads distributions and writes nothing: no output tokens.
      usage: { input_tokens: read.inputTokens, output_tokens: 0 },
    }),
    serialize: stringifyInOrder,
  };
}
