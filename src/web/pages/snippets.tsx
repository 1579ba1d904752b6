/** @jsxImportSource hono/jsx */

/** The two ways a request is shown, each with its copy button (static/snippets.js writes and copies them). */
const KINDS = [
  { kind: 'curl', label: 'curl command' },
  { kind: 'ts', label: 'TypeScript' },
] as const;

/**
 * A request as code: a curl command against `origin` and the typed client's call,
 * written by static/snippets.js; each in a region a keyboard can scroll (a phone
 * scrolls the code, not the page), and one live region that says what was copied.
 */
export function Snippets({ id, origin }: { id: string; origin: string }) {
  return (
    <div class="snippets" id={id} data-snippets data-origin={origin}>
      {KINDS.map(({ kind, label }) => (
        <div class="snippet">
          <div class="snippet-head">
            <h3 id={`${id}-${kind}`}>{label}</h3>
            <button type="button" data-copy={kind} data-label={label}>
              Copy<span class="visually-hidden"> the {label}</span>
            </button>
          </div>
          {/* biome-ignore lint/a11y/useSemanticElements: the code block itself is the region a keyboard scrolls */}
          <pre tabindex={0} role="region" aria-labelledby={`${id}-${kind}`}>
            <code data-snippet={kind}></code>
          </pre>
        </div>
      ))}
      <p class="muted" data-copy-state aria-live="polite"></p>
    </div>
  );
}

/**
 * The pass page's "View as curl / TypeScript": the form's request as code, kept in step
 * with the form. Hidden until the script runs, since only the script can write it.
 */
export function CodePanel({ origin }: { origin: string }) {
  return (
    <section class="card" id="as-code" hidden>
      <details>
        <summary>View as curl / TypeScript</summary>
        <p class="muted">
          The form's request as a command and as a call of the typed client (<code>npm install decide-service</code>), rewritten as you
          type. The key is a stand-in: put the key whose hint is <code data-key-placeholder></code> in its place; this page never holds a
          key.
        </p>
        <Snippets id="form-code" origin={origin} />
      </details>
    </section>
  );
}
