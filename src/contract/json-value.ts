import { z } from 'zod';

export type JsonValue = string | number | boolean | null | unknown[] | { [key: string]: JsonValue };

/**
 * Any JSON value, as one named, self-referencing schema. zod's own `z.json()` is
 * published by zod-openapi as a fresh anonymous copy at every use (`__schema0`,
 * `__schema1`, …), which client generators such as openapi-typescript cannot type; a
 * lazy union with an id is written once, as `#/components/schemas/JsonValue`.
 *
 * It refers to itself through objects only; an array's items are any JSON (`{}`), as
 * the format's own schema has them (`list[Any]`). TypeScript cannot type a union
 * that holds an array of itself when the union is reached through an indexed type, as
 * generated clients reach every schema (`components["schemas"]["JsonValue"][]` is
 * TS2502), while an object of itself is fine. Nothing is lost in checking: the body
 * is parsed JSON, so whatever an array holds is JSON already.
 */
export const JsonValue: z.ZodType<JsonValue> = z
  .lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), JsonValue)]))
  .meta({ id: 'JsonValue', description: 'Any JSON value.' });
