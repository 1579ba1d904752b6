import { z } from 'zod';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Any JSON value, as one named, self-referencing schema. zod's own `z.json()` is
 * published by zod-openapi as a fresh anonymous copy at every use (`__schema0`,
 * `__schema1`, …), which client generators such as openapi-typescript cannot type; a
 * lazy union with an id is written once, as `#/components/schemas/JsonValue`, and
 * refers to itself.
 */
export const JsonValue: z.ZodType<JsonValue> = z
  .lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValue), z.record(z.string(), JsonValue)]))
  .meta({ id: 'JsonValue', description: 'Any JSON value.' });
