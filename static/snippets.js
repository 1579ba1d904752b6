// decide's pages: a request as code. The pass page shows its form's request as a curl
// command and as a call of the typed client, rewritten as the form changes; the home
// page shows an example filled with the key it just created. The two builders are
// plain functions on `decideSnippets`, so a test runs them outside a browser too.
'use strict';

(() => {
  /** `text` as one shell word: in single quotes, where nothing is special but the quote itself. */
  const shellWord = (text) => `'${String(text).replaceAll("'", `'\\''`)}'`;

  /** The request as the API takes it: the fields of its mode only, in the contract's order. */
  function body(request) {
    const out = { mode: request.mode, question: request.question, context: request.context };
    if (request.mode === 'choice') out.options = request.options ?? [];
    if (request.mode === 'score') out.levels = request.levels ?? [];
    out.depth = request.depth ?? 'standard';
    return out;
  }

  /** `POST /v1/decisions` as a curl command, one argument a line; `key` as given (a real key, or a placeholder). */
  function curl(origin, request, key) {
    return [
      `curl -sS ${shellWord(`${origin}/v1/decisions`)}`,
      `  -H ${shellWord(`Authorization: Bearer ${key}`)}`,
      `  -H 'Content-Type: application/json'`,
      `  --data-raw ${shellWord(JSON.stringify(body(request), null, 2))}`,
    ].join(' \\\n');
  }

  /** The same request through the package's typed client (JSON's strings are TypeScript's too). */
  function typescript(origin, request, key) {
    const literal = (value) => (Array.isArray(value) ? `[${value.map((v) => JSON.stringify(v)).join(', ')}]` : JSON.stringify(value));
    const fields = Object.entries(body(request)).map(([name, value]) => `  ${name}: ${literal(value)},`);
    return [
      "import { DecideClient } from 'decide-service';",
      '',
      `const client = new DecideClient({ url: ${JSON.stringify(origin)}, apiKey: ${JSON.stringify(key)} });`,
      'const answer = await client.decide({',
      ...fields,
      '});',
      'console.log(answer.result, answer.signal);',
    ].join('\n');
  }

  globalThis.decideSnippets = { curl, typescript };
  if (typeof document === 'undefined') return;

  /** Writes both snippets of a `[data-snippets]` block. */
  function fill(block, request, key) {
    const origin = block.dataset.origin;
    block.querySelector('[data-snippet="curl"]').textContent = curl(origin, request, key);
    block.querySelector('[data-snippet="ts"]').textContent = typescript(origin, request, key);
  }

  /** Its copy buttons: the clipboard, or else the text selected for Ctrl+C; said either way in the block's live region. */
  function initCopy(block) {
    const state = block.querySelector('[data-copy-state]');
    block.addEventListener('click', async (event) => {
      const button = event.target.closest('button[data-copy]');
      if (!button) return;
      const code = block.querySelector(`[data-snippet="${button.dataset.copy}"]`);
      // Emptied first, so that the same words said again are announced again.
      state.textContent = '';
      try {
        await navigator.clipboard.writeText(code.textContent);
        state.textContent = `Copied the ${button.dataset.label}.`;
      } catch {
        getSelection().selectAllChildren(code);
        state.textContent = `Selected the ${button.dataset.label}: copy it with Ctrl+C (⌘C).`;
      }
    });
  }

  /** The pass page: the form's request, with the paying key's hint standing in for the key, which the page never has. */
  function initPassPanel() {
    const form = document.querySelector('#decide-form');
    const panel = document.querySelector('#as-code');
    if (!form || !panel) return;
    const block = panel.querySelector('[data-snippets]');
    const field = (name) => form.elements.namedItem(name);
    const update = () => {
      const mode = field('mode').value;
      const request = { mode, question: field('question').value, context: field('context').value, depth: field('depth').value };
      if (mode === 'choice') {
        request.options = [...form.querySelectorAll('input[name^="options."]')].map((input) => input.value).filter((v) => v.trim() !== '');
      }
      if (mode === 'score') request.levels = [0, 1, 2].map((i) => field(`levels.${i}`).value);
      const select = field('keyId');
      const hint = select?.selectedOptions[0]?.textContent || 'dcd_api_…';
      fill(block, request, hint);
      panel.querySelector('[data-key-placeholder]').textContent = hint;
    };
    form.addEventListener('input', update);
    form.addEventListener('change', update);
    update();
    initCopy(block);
    panel.hidden = false;
  }

  /** The home page: an example decision, filled with the key just created (home.js calls it). */
  const EXAMPLE = {
    mode: 'choice',
    question: 'Which database should the team adopt for the new service?',
    context: 'The team knows SQL well. The service needs transactions across several tables.',
    options: ['PostgreSQL', 'MongoDB'],
    depth: 'standard',
  };
  globalThis.decideSnippets.showKey = (key) => {
    const block = document.querySelector('#new-key [data-snippets]');
    if (!block) return;
    fill(block, EXAMPLE, key);
    block.querySelector('[data-copy-state]').textContent = '';
  };

  document.addEventListener('DOMContentLoaded', () => {
    initPassPanel();
    const home = document.querySelector('#new-key [data-snippets]');
    if (home) initCopy(home);
  });
})();
