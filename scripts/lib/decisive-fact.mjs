// The decisive fact's place among an item's facts, as a stress decision splits the context
// (its without-fact checks are in that order), for the scripts that ask whether a check
// found it (stress-checks.mjs, packed-checks.mjs). Run `npm run build` first.
import { splitFacts } from '../../dist/decision/facts.js';

/** The index of `item.decisiveFact` among the context's facts; -1 when it is not one of them. */
export const decisiveIndex = (item) => splitFacts(item.context).findIndex((fact) => fact.text.trim() === item.decisiveFact.trim());
