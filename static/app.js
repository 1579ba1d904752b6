// decide's pages: a little script, no framework and no build step. It runs under a
// Content-Security-Policy without 'unsafe-inline', so there are no inline handlers,
// and every text from the service or the user goes into the page as textContent.
// Its helpers ($, api, say, fail) serve home.js too, which is loaded after it.
'use strict';

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

/** One call of the service's own API (the pass cookie travels by itself). */
async function api(method, path, body) {
  const init = { method, headers: { accept: 'application/json' }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    return { status: 0, body: { error: 'the service cannot be reached; check the connection and try again', code: 'unreachable' } };
  }
  let json = null;
  try {
    json = await response.json();
  } catch {
    // not JSON: described by its status below
  }
  // Seconds to wait before trying again, when the service says (a busy or unavailable engine).
  const retryAfter = /^\d+$/.test(response.headers.get('retry-after') ?? '') ? Number(response.headers.get('retry-after')) : undefined;
  return { status: response.status, body: json, retryAfter };
}

const messageOf = (answer) => (answer.body && answer.body.error) || `the service answered HTTP ${answer.status}`;

function say(element, text) {
  element.textContent = text || '';
  element.hidden = !text;
}

/** Shows an error and moves the keyboard's focus to it, so it is read out and the place is not lost. */
function fail(element, text) {
  say(element, text);
  element.focus();
}

// ---- The pass page: revoking keys ----

/** How long an armed Revoke waits for its confirming click. */
const ARMED_MS = 5000;

function disarm(button) {
  if (button.dataset.armed !== '1') return;
  clearTimeout(Number(button.dataset.timer));
  button.dataset.armed = '0'; // app.css shows the label "Revoke" again
}

function initRevoke() {
  $$('button.revoke').forEach((button) => {
    button.disabled = false;
    // An armed button goes back to "Revoke" when the user looks elsewhere, presses Escape, or waits.
    button.addEventListener('blur', () => disarm(button));
    button.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') disarm(button);
    });
  });
  document.addEventListener('click', async (event) => {
    const button = event.target.closest('button.revoke');
    if (!button) return;
    // Two steps instead of a dialog: the first click arms the button.
    if (button.dataset.armed !== '1') {
      button.dataset.armed = '1'; // app.css shows "Confirm: revoke", in the place of "Revoke"
      button.dataset.timer = String(setTimeout(() => disarm(button), ARMED_MS));
      return;
    }
    clearTimeout(Number(button.dataset.timer));
    button.dataset.armed = 'busy'; // not disarmed by the blur that disabling causes
    button.disabled = true;
    const row = button.closest('tr');
    const status = $('.status', row);
    const answer = await api('DELETE', `/v1/keys/${encodeURIComponent(button.dataset.keyId)}`);
    if (answer.status !== 200) {
      button.disabled = false;
      button.dataset.armed = '1';
      disarm(button);
      say(status, `not revoked: ${messageOf(answer)}`);
      return button.focus();
    }
    // In the words the server uses (src/web/pages/when.tsx): revoked just now is "today", the exact time its title.
    const at = answer.body.revokedAt;
    const time = Object.assign(document.createElement('time'), { dateTime: at, title: `${at.slice(0, 10)} ${at.slice(11, 16)} UTC`, textContent: 'today' });
    status.replaceChildren('revoked ', time);
    row.classList.add('revoked');
    button.remove();
    status.focus(); // the button is gone: the focus goes to what became of the key
    const select = $('#decide-form select[name="keyId"]');
    $(`option[value="${CSS.escape(row.dataset.keyId)}"]`, select ?? document.createElement('select'))?.remove();
    refreshSubmit();
  });
}

// ---- The pass page: naming keys ----

/** The name shown above the key's hint in its row: set, replaced, or removed with the line break after it. */
function showName(cell, name) {
  let shown = $('.key-name', cell);
  if (!name) {
    shown?.nextElementSibling?.remove();
    return shown?.remove();
  }
  if (!shown) {
    shown = Object.assign(document.createElement('span'), { className: 'key-name breakable' });
    cell.prepend(shown, document.createElement('br'));
  }
  shown.textContent = name;
}

function initNaming() {
  $$('form.name-key').forEach((form) => {
    const button = $('button', form);
    const input = form.elements.namedItem('name');
    const error = $('.field-error', form);
    button.disabled = false;
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const name = input.value.trim(); // the rule refuses surrounding spaces: they are never meant
      button.disabled = true;
      const answer = await api('PATCH', `/v1/keys/${encodeURIComponent(form.dataset.keyId)}`, { name: name || null });
      button.disabled = false;
      if (answer.status !== 200) {
        input.setAttribute('aria-invalid', 'true');
        say(error, answer.body?.issues?.[0]?.message ?? messageOf(answer));
        return input.focus(); // its aria-describedby reads the error out
      }
      input.removeAttribute('aria-invalid');
      say(error, '');
      input.value = answer.body.name ?? '';
      showName(form.closest('td'), answer.body.name);
      const details = form.closest('details');
      details.open = false;
      $('summary', details).firstChild.textContent = answer.body.name ? 'Rename' : 'Name it';
      $('summary', details).focus();
    });
  });
}

// ---- The pass page: the decision form ----

/** The request the form describes, and which input each field of the contract names. */
function collect(form) {
  const field = (name) => form.elements.namedItem(name);
  const mode = field('mode').value;
  const request = {
    keyId: field('keyId')?.value ?? '',
    mode,
    question: field('question').value,
    context: field('context').value,
    depth: field('depth').value,
  };
  const inputOf = {};
  if (mode === 'choice') {
    request.options = [];
    $$('input[name^="options."]', form).forEach((input) => {
      if (input.value.trim() === '') return; // empty boxes are left out
      inputOf[`options.${request.options.length}`] = input.name;
      request.options.push(input.value);
    });
  }
  if (mode === 'score') request.levels = [0, 1, 2].map((i) => field(`levels.${i}`).value);
  return { request, inputOf };
}

/** Clears the errors and the last answer: what shows below the form is always the latest request's outcome. */
function clearOutcome(form) {
  $$('.field-error', form).forEach((slot) => say(slot, ''));
  $$('[aria-invalid]', form).forEach((input) => input.removeAttribute('aria-invalid'));
  say($('#decide-error'), '');
  const answer = $('#answer');
  answer.hidden = true;
  answer.replaceChildren();
}

/**
 * Each problem beside the field it names (`options.1` → the box it came from), the
 * rest above the button; the focus goes to the first field named, whose
 * `aria-describedby` reads its error out, and the alert says how many there are.
 */
function showIssues(form, issues, inputOf) {
  const unplaced = [];
  const named = [];
  for (const { field, message } of issues) {
    const name = inputOf[field] ?? field;
    const slot = $(`[data-error-for="${CSS.escape(name)}"]`, form) ?? $(`[data-error-for="${CSS.escape(name.split('.')[0])}"]`, form);
    if (!slot) {
      unplaced.push(`${field}: ${message}`);
      continue;
    }
    say(slot, slot.textContent ? `${slot.textContent}; ${message}` : message);
    const input = form.elements.namedItem(name);
    if (input?.setAttribute) {
      input.setAttribute('aria-invalid', 'true');
      named.push(input);
    }
  }
  const count = issues.length - unplaced.length;
  const summary = count ? [`${count === 1 ? 'One field needs' : `${count} fields need`} a change: see beside ${count === 1 ? 'it' : 'them'}.`] : [];
  say($('#decide-error'), [...summary, ...unplaced].join(' '));
  const first = $$('input, select, textarea', form).find((input) => named.includes(input));
  (first ?? $('#decide-error')).focus();
}

function showMode(form) {
  const mode = form.elements.namedItem('mode').value;
  $$('fieldset[data-mode]', form).forEach((set) => {
    set.hidden = set.dataset.mode !== mode;
  });
}

async function refreshPass() {
  const answer = await api('GET', '/v1/pass');
  if (answer.status !== 200) return;
  $('#pass-credits').textContent = String(answer.body.passCredits);
  $('#pass-funded').textContent = answer.body.fundedEver ? 'yes' : 'not yet';
  // How to fund the pass, said only until it is funded (as the page is rendered).
  const hint = $('#fund-hint');
  if (hint) hint.hidden = answer.body.fundedEver;
  for (const key of answer.body.keys) {
    const cell = $(`tr[data-key-id="${CSS.escape(key.id)}"] .free-used`);
    if (!cell) continue;
    $('meter', cell).value = key.freeUsed;
    $('span', cell).textContent = String(key.freeUsed);
  }
}

/** Decide works while the form has a key to pay with (the server renders it disabled, for browsers without the script). */
function refreshSubmit() {
  const form = $('#decide-form');
  if (!form) return;
  const submit = $('button[type="submit"]', form);
  submit.disabled = submit.dataset.busy === '1' || form.elements.namedItem('keyId').options.length === 0;
}

/**
 * A refusal in words: an engine's failure as the CLI says it (the engine's own wording
 * is for the operator's log), anything else as the service words it, with its code.
 */
function failureWords(answer) {
  const code = answer.body?.code;
  return window.decideWording.engineFailureWords(code ?? '', answer.retryAfter) ?? `${messageOf(answer)}${code ? ` (${code})` : ''}`;
}

/**
 * What a decision in progress is doing, below the button: the time so far, ticking,
 * beside what the model is asked. Only the latter is in the live region, so a screen
 * reader reads it once and not every second. Returns what ends it.
 */
function showProgress(depth) {
  const wording = window.decideWording;
  const elapsed = $('#decide-elapsed');
  const started = Date.now();
  const tick = () => {
    elapsed.textContent = `${wording.decidingFor((Date.now() - started) / 1000)}: `;
  };
  const status = $('#decide-progress'); // never hidden: a live region shown with its text may go unread
  tick();
  const timer = setInterval(tick, 1000);
  status.textContent = wording.PROGRESS[depth === 'stress' ? 'stress' : 'standard'];
  return () => {
    clearInterval(timer);
    elapsed.textContent = '';
    status.textContent = '';
  };
}

function initDecisionForm() {
  const form = $('#decide-form');
  if (!form) return;
  form.elements.namedItem('mode').addEventListener('change', () => showMode(form));
  showMode(form);
  refreshSubmit();
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearOutcome(form);
    const submit = $('button[type="submit"]', form);
    const { request, inputOf } = collect(form);
    submit.dataset.busy = '1';
    refreshSubmit();
    submit.textContent = 'Deciding…';
    const stopProgress = showProgress(request.depth);
    try {
      const answer = await api('POST', '/v1/web/decisions', request);
      if (answer.status === 200) {
        window.decideRender(answer.body);
        $('#answer > h3').focus();
      } else if (answer.status === 400 && answer.body?.issues) {
        showIssues(form, answer.body.issues, inputOf);
      } else {
        fail($('#decide-error'), failureWords(answer));
      }
      await refreshPass(); // the balance and the free use, whatever the outcome
    } finally {
      stopProgress();
      submit.dataset.busy = '0';
      refreshSubmit();
      submit.textContent = 'Decide';
    }
  });
}

/** A key made on the pass page of a pass without a live key (home.js makes it): the form pays with it at once. */
document.addEventListener('decide:key-created', (event) => {
  const select = $('#decide-form select[name="keyId"]');
  if (!select) return;
  select.append(new Option(event.detail.keyHint, event.detail.id, true, true));
  const reason = $('#no-key-reason');
  if (reason) say(reason, '');
  refreshSubmit();
});

document.addEventListener('DOMContentLoaded', () => {
  initRevoke();
  initNaming();
  initDecisionForm();
});
