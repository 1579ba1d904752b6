// The home page's part of decide's pages: the verification widget's callbacks and
// "Create a key" with its one key panel (which the pass page of a pass without a live
// key has too). Loaded after app.js, whose helpers it uses
// ($, api, say, fail), and before the widget's script, which calls its callbacks.
'use strict';

let verificationToken = null;
// The widget's callbacks, named in its data-callback attributes.
window.decideVerified = (token) => {
  verificationToken = token;
  refreshCreateButton();
};
window.decideVerificationExpired = () => {
  verificationToken = null;
  refreshCreateButton();
};
window.decideVerificationError = () => {
  verificationToken = null;
  refreshCreateButton();
  const error = $('#create-error');
  if (error) say(error, 'The verification widget failed to load or run; reload the page to try again.');
};

function resetWidget() {
  verificationToken = null;
  try {
    window.turnstile?.reset();
    window.hcaptcha?.reset();
  } catch {
    // no widget on the page
  }
}

function refreshCreateButton() {
  const button = $('#create-key');
  if (!button) return;
  const waiting = button.dataset.needsToken === '1' && button.dataset.hasPass !== '1' && !verificationToken;
  button.disabled = waiting || button.dataset.busy === '1';
}

/** The key panel: hidden when a refusal takes its place; a key shown is marked copied once the user copied it. */
function showKey(key) {
  const panel = $('#new-key');
  $('#new-key-value').textContent = key;
  panel.dataset.copied = key ? '0' : '1';
  panel.hidden = !key;
  say($('#copy-state'), '');
  if (key) window.decideSnippets?.showKey(key); // snippets.js: the example, with this key in it
}

/** The key shown was copied: "Create a key" no longer asks before replacing it. */
function markCopied() {
  $('#new-key').dataset.copied = '1';
  say($('#replace-warning'), '');
}

/** A refusal, in the place of the last key, which is gone for good. */
function refuse(text) {
  showKey('');
  fail($('#create-error'), text);
}

async function createKey(button) {
  // A key not yet copied is never replaced without a warning: the first click only says so.
  const warning = $('#replace-warning');
  if ($('#new-key').dataset.copied === '0' && warning.hidden) {
    const text = 'The key below has not been copied, and it will not be shown again:';
    return say(warning, `${text} copy it first, or press "Create a key" again to replace it.`);
  }
  say(warning, '');
  say($('#create-error'), '');
  if (button.dataset.hasPass !== '1') {
    const pass = await api('POST', '/v1/pass', verificationToken ? { verificationToken } : {});
    if (pass.status !== 200 && pass.status !== 201) {
      resetWidget();
      return refuse(`The browser could not be verified: ${messageOf(pass)}`);
    }
    button.dataset.hasPass = '1';
    say($('#pass-state'), 'This browser is verified and holds a pass.');
  }
  const made = await api('POST', '/v1/keys');
  if (made.status !== 201) {
    // A refused key takes an empty pass with it: the next try verifies the browser again.
    if ((await api('GET', '/v1/pass')).status !== 200) {
      button.dataset.hasPass = '0';
      resetWidget();
      say($('#pass-state'), 'This browser holds no pass: it is verified again on the next try.');
    }
    return refuse(`No key was created: ${messageOf(made)}`);
  }
  showKey(made.body.key);
  document.dispatchEvent(new CustomEvent('decide:key-created', { detail: made.body })); // the pass page's form takes it (app.js)
  $('#copy-key').focus();
}

function initHome() {
  const button = $('#create-key');
  if (!button) return;
  refreshCreateButton();
  button.addEventListener('click', async () => {
    button.dataset.busy = '1';
    refreshCreateButton();
    try {
      await createKey(button);
    } finally {
      button.dataset.busy = '0';
      refreshCreateButton();
    }
  });
  const value = $('#new-key-value');
  $('#copy-key').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(value.textContent);
      markCopied();
      say($('#copy-state'), 'Copied to the clipboard.');
    } catch {
      getSelection().selectAllChildren(value); // copied by the keyboard: the copy event below sees it
      say($('#copy-state'), 'Selected: copy it with Ctrl+C (⌘C).');
    }
  });
  // Copied by hand (Ctrl+C, a menu) counts as copied too.
  document.addEventListener('copy', () => {
    if (value.textContent && getSelection().containsNode(value, true)) markCopied();
  });
}

document.addEventListener('DOMContentLoaded', initHome);
