import { byOptionText, questionText } from '../fakes/openai-fake.js';
import type { OpenAIBehaviour } from '../fakes/openai-fake.js';

/** The context-sufficiency probe, recognised by how the decision layer words it. */
export function isSufficiencyProbe(body: any): boolean {
  return questionText(body).startsWith('Does the text contain enough facts');
}

/**
 * Scripts the OpenAI fake by meaning rather than by letter: `main` maps option text
 * (or `Yes`/`No`, or level names) to token probabilities whatever order the prompt
 * shows them in; `sufficiency` does the same for the probe. Extra keys that are not
 * options (e.g. `The`) are sent as plain tokens, mass the engine must ignore.
 */
export function scripted(main: Record<string, number>, sufficiency: Record<string, number>) {
  return (body: any): OpenAIBehaviour => ({ labels: tokens(body, isSufficiencyProbe(body) ? sufficiency : main) });
}

export function tokens(body: any, probabilities: Record<string, number>): Record<string, number> {
  const known: Record<string, number> = {};
  const extra: Record<string, number> = {};
  for (const [key, p] of Object.entries(probabilities)) {
    try {
      Object.assign(known, byOptionText(body, { [key]: p }));
    } catch {
      extra[key] = p;
    }
  }
  return { ...known, ...extra };
}
