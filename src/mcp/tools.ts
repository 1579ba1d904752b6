import type { StandardSchemaWithJSON, Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ChoiceRequest, DecisionResponse, Mode, ScoreRequest, Usage, type DecisionRequest } from '../contract/index.js';
import { FREE_PER_KEY } from '../service/limits.js';

/**
 * The three tools, their schemas derived from the contract (src/contract), never
 * restated. Shared by the tool server (which runs them) and the stdio bridge (which
 * lists them when the remote server cannot be reached).
 */

const JSON_SCHEMA_TARGET = 'draft-2020-12';

/**
 * The tool arguments: the DecisionRequest without `depth`, as one flat object. MCP
 * wants an object at the root of an input schema and the contract's request is a
 * union of three strict objects, so the fields are taken from those objects; which
 * of `options`/`levels` is required depends on `mode`, and the contract's own
 * DecisionRequest decides that at call time (see `decisionRequestFrom`).
 */
export const DecisionArguments = z.strictObject({
  mode: Mode.meta({
    description: '`choice` compares options, `noul` gives the probability of yes, `score` places the answer on three levels.',
  }),
  question: ChoiceRequest.shape.question,
  context: ChoiceRequest.shape.context,
  options: ChoiceRequest.shape.options
    .optional()
    .meta({ description: 'Mode `choice` only (and required there): 2 to 6 distinct options.' }),
  levels: ScoreRequest.shape.levels
    .optional()
    .meta({ description: 'Mode `score` only (and required there): exactly 3 levels, ordered from low to high.' }),
});

type JsonSchemaProps = StandardSchemaWithJSON['~standard']['jsonSchema'];
type JsonSchemaOf = JsonSchemaProps['input'];

/**
 * zod converts a schema to JSON Schema anew on every call, and the tool server (a
 * fresh McpServer per request, so the SDK's own memo never outlives one) asks for the
 * called tool's input and output schemas on every `tools/call`: a third of its CPU.
 * The schemas never change, so each is converted once per set of options; the SDK
 * only reads the result (it spreads, never writes into it).
 */
function once(convert: JsonSchemaOf): JsonSchemaOf {
  const made = new Map<string, ReturnType<JsonSchemaOf>>();
  return (options) => {
    const key = JSON.stringify(options ?? null);
    let json = made.get(key);
    if (json === undefined) {
      json = convert(options);
      made.set(key, json);
    }
    return json;
  };
}

function converted(jsonSchema: JsonSchemaProps): JsonSchemaProps {
  return { input: once(jsonSchema.input), output: once(jsonSchema.output) };
}

/**
 * A schema the SDK publishes as `jsonSchema` says but never checks a value against:
 * every value passes through as it is.
 */
function unchecked(jsonSchema: JsonSchemaProps): StandardSchemaWithJSON {
  return {
    '~standard': {
      version: 1,
      vendor: 'decide',
      validate: (value: unknown) => ({ value }),
      jsonSchema: converted(jsonSchema),
    },
  };
}

/**
 * Advertises `schema` but lets every value through: the SDK would otherwise reject
 * bad arguments with its own wording before the handler runs, and the caller would
 * not get the contract's `invalid_request` sentence and code that the HTTP API gives.
 */
function advertisedOnly(schema: z.ZodType): StandardSchemaWithJSON {
  return unchecked(schema['~standard'].jsonSchema as JsonSchemaProps);
}

/**
 * zod emits a schema that carries a registered id (DecisionResponse, Usage) as
 * `{ $ref: '#/$defs/X', $defs }`; MCP clients expect `type: 'object'` with
 * `properties` at the root of an output schema, so the root definition is lifted
 * out of `$defs` (the other definitions stay, and their references still resolve).
 */
function liftRootRef(json: Record<string, unknown>): Record<string, unknown> {
  const match = typeof json.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(json.$ref) : null;
  const defs = json.$defs as Record<string, JsonObject> | undefined;
  if (!match || !defs?.[match[1]]) return json;
  const { [match[1]]: root, ...rest } = defs;
  const { $ref: _ref, $defs: _defs, ...top } = json;
  return { ...top, ...withSharedFields(root, defs), ...(Object.keys(rest).length ? { $defs: rest } : {}) };
}

type JsonObject = Record<string, unknown>;

/**
 * A decision is one object per mode (`oneOf`). Its root still says `type: 'object'`
 * and lists, as `properties` and `required`, the fields every mode's object has
 * alike, so a client that reads only the root sees them; `oneOf` keeps the rest.
 */
function withSharedFields(root: JsonObject, defs: Record<string, JsonObject>): JsonObject {
  if (!Array.isArray(root.oneOf)) return root;
  const members = (root.oneOf as JsonObject[]).map((m) => (typeof m.$ref === 'string' ? defs[m.$ref.replace('#/$defs/', '')] : m));
  if (members.some((m) => m?.type !== 'object')) return root;
  const [first, ...others] = members.map((m) => ({
    properties: (m.properties ?? {}) as JsonObject,
    required: (m.required ?? []) as string[],
  }));
  const same = (name: string) => others.every((o) => JSON.stringify(o.properties[name]) === JSON.stringify(first.properties[name]));
  const properties = Object.fromEntries(Object.entries(first.properties).filter(([name]) => same(name)));
  const required = first.required.filter((name) => others.every((o) => o.required.includes(name)));
  return { type: 'object', properties, required, ...root };
}

/**
 * The contract's schema, published with its root lifted. The SDK would parse every
 * result against it again; the results are the service's own contract objects, which
 * `/v1` answers unchecked, so that parse (about 2 % of an MCP call's CPU in a profile)
 * checks nothing a client does not check itself against this schema.
 */
function outputSchema(schema: z.ZodType): StandardSchemaWithJSON {
  const { jsonSchema } = schema['~standard'] as StandardSchemaWithJSON['~standard'];
  return unchecked({
    input: (options) => liftRootRef(jsonSchema.input(options)),
    output: (options) => liftRootRef(jsonSchema.output(options)),
  });
}

export type ToolName = 'weigh_decision' | 'stress_test_decision' | 'get_usage';

export interface ToolDefinition {
  title: string;
  description: string;
  inputSchema: StandardSchemaWithJSON;
  outputSchema: StandardSchemaWithJSON;
  annotations: ToolAnnotations;
}

/** `get_usage`'s arguments: none. */
export const NoArguments = z.strictObject({});

const DECISION_INPUT = advertisedOnly(DecisionArguments);
const NO_ARGUMENTS = advertisedOnly(NoArguments);

const SHARED = `Give the question, the facts you have as the context (sentences or list items) and, by mode, the options or the three levels.
The answer holds the probabilities, a signal (directional, yes, no, unclear, needs-context) and contextSufficiency (0 to 1; below 0.5 the facts are not enough: gather more before acting).`;

export const TOOLS: Record<ToolName, ToolDefinition> = {
  weigh_decision: {
    title: 'Weigh a decision',
    description: `Weighs a decision with a decision engine: compares 2 to 6 options (mode choice), gives the probability of yes (mode noul) or places the answer on three ordered levels (mode score).
${SHARED}
Cost: one of the key's ${FREE_PER_KEY} free decisions of the UTC day, then 1 pass credit.`,
    inputSchema: DECISION_INPUT,
    outputSchema: outputSchema(DecisionResponse),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  stress_test_decision: {
    title: 'Stress-test a decision',
    description: `Weighs a decision like weigh_decision, then repeats it with the options (or levels, or yes/no) reversed and with each fact of the context removed in turn; reports how often the answer holds (agreement) and names the decisive fact (pivot).
${SHARED}
Cost: 5 pass credits; needs a funded pass.`,
    inputSchema: DECISION_INPUT,
    outputSchema: outputSchema(DecisionResponse),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  get_usage: {
    title: 'Usage and balance',
    description: `Today's free decisions left for this key (${FREE_PER_KEY} a UTC day) and the credits of its linked pass. Free.`,
    inputSchema: NO_ARGUMENTS,
    outputSchema: outputSchema(Usage),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
};

/** The depth each decision tool forces. */
export const TOOL_DEPTH: Record<Exclude<ToolName, 'get_usage'>, DecisionRequest['depth']> = {
  weigh_decision: 'standard',
  stress_test_decision: 'stress',
};

/** The tools as `tools/list` names them, for a listing made without a server. */
export function listedTools(): Tool[] {
  const json = (schema: StandardSchemaWithJSON, io: 'input' | 'output') =>
    schema['~standard'].jsonSchema[io]({ target: JSON_SCHEMA_TARGET }) as Tool['inputSchema'];
  return Object.entries(TOOLS).map(([name, tool]) => ({
    name,
    title: tool.title,
    description: tool.description,
    inputSchema: json(tool.inputSchema, 'input'),
    outputSchema: json(tool.outputSchema, 'output'),
    annotations: tool.annotations,
  }));
}
