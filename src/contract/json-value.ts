import { z } from 'zod';

export type JsonValue = string | number | boolean | null | unknown[] | { [key: string]: unknown };

/**
 * Any JSON value, as one named schema. zod's own `z.json()` is published by
 * zod-openapi as a fresh anonymous copy at every use (`__schema0`, `__schema1`, …),
 * which client generators such as openapi-typescript cannot type; a union with an id
 * is written once, as `#/components/schemas/JsonValue`.
 *
 * It does not refer to itself: an array's items and an object's values are any JSON
 * (`{}`), as the format's own schema has them (`list[Any]`, `dict[str, Any]`).
 * Generators fail on a union that holds itself: TypeScript cannot type one that holds
 * an array of itself when it is reached through an indexed type, as generated clients
 * reach every schema (`components["schemas"]["JsonValue"][]` is TS2502), and
 * openapi-python-client cannot parse one that holds an object of itself (it dropped
 * JsonValue, and with it POST /v1/systemone). Nothing is lost in checking: the body
 * is parsed JSON, so whatever an array or object holds is JSON already.
 */
export const JsonValue: z.ZodType<JsonValue> = z
  .union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())])
  .meta({ id: 'JsonValue', description: 'Any JSON value.' });
