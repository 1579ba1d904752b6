/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';

/**
 * What a "Create a key" button (`#create-key`, home.js drives it) shows: a key not yet
 * copied is warned about before it is replaced, a refusal takes the place of the last
 * key, and a new key is shown once with its copy button. The home page and the pass
 * page of a pass without a live key share it; `children` say what comes next.
 */
export function NewKeyPanel(props: { children?: Child }) {
  return (
    <>
      {/* Shown when "Create a key" would replace a key not yet copied; the next click replaces it. */}
      <p id="replace-warning" class="warning" role="alert" hidden></p>
      {/* One panel: a refusal takes the place of the last key (home.js hides one when it shows the other). */}
      <p id="create-error" class="error" role="alert" tabindex={-1} hidden></p>
      <div id="new-key" class="new-key" hidden>
        <p class="warning">
          <strong>Copy this key now: it will not be shown again.</strong> The service keeps only its fingerprint, so nobody can show it to
          you later.
        </p>
        <div class="key-row">
          <code id="new-key-value"></code>
          <button id="copy-key" type="button">
            Copy
          </button>
        </div>
        <p id="copy-state" class="muted" aria-live="polite"></p>
        {props.children}
      </div>
    </>
  );
}
