/** @jsxImportSource hono/jsx */
import type { PassRecord } from '../../contract/index.js';
import { KEYS_PER_IP_PER_DAY } from '../../service/limits.js';
import type { PassDashboard } from '../passes.js';
import { NewKeyPanel } from './new-key.js';
import { Ago } from './when.js';

type Props = { pass: PassRecord; dashboard: PassDashboard };

/**
 * A pass without a live key cannot pay for anything, whatever its credits: said
 * plainly, with a button that makes a key for this pass (home.js, as on the home page).
 * The ledger makes it past the network's daily count for a funded pass whose keys were
 * all revoked, once a day (ledger/web.ts); otherwise the count decides, and its refusal shows.
 */
function NoLiveKey({ pass }: { pass: PassRecord }) {
  const why = pass.keys.length === 0 ? 'it has no key yet' : 'every key of it is revoked';
  const credits = pass.passCredits > 0 ? `, and its ${pass.passCredits} credits wait unused` : '';
  return (
    <div id="no-live-key" class="notice">
      <p>
        <strong>This pass has no live key</strong>: {why}, so nothing can pay for a decision{credits}. A new key for this pass is shown
        once, here.
      </p>
      <p class="muted">
        A network creates at most {KEYS_PER_IP_PER_DAY} keys a day; a pass the operator funded may still replace its revoked keys, once a
        day.
      </p>
      <p>
        {/* Disabled until the page's script runs; the pass is the browser's, so no verification. */}
        <button id="create-key" type="button" data-has-pass="1" data-needs-token="0" disabled>
          Create a key for this pass
        </button>
      </p>
      <NewKeyPanel>
        <p>It pays for the decisions below from now on; reload the page to see it among the keys.</p>
      </NewKeyPanel>
    </div>
  );
}

/**
 * Names an active key (app.js sends it; the ledger checks it, the field-level error
 * comes back beside the input). Closed until asked for; Save is disabled until the
 * script runs, so without it nothing is sent.
 */
function NameForm({ keyId, keyHint, name }: { keyId: string; keyHint: string; name: string | null }) {
  const errorId = `name-error-${keyId}`;
  return (
    <details class="rename">
      <summary>
        {name === null ? 'Name it' : 'Rename'}
        <span class="visually-hidden"> {keyHint}</span>
      </summary>
      <form class="name-key" data-key-id={keyId} method="post" novalidate>
        <label>
          Name <span class="muted">(up to 100 characters; empty clears it)</span>
          <input name="name" type="text" maxlength={100} value={name ?? ''} autocomplete="off" aria-describedby={errorId} />
        </label>
        <p class="field-error" id={errorId} hidden></p>
        <button type="submit" disabled>
          Save
        </button>
      </form>
    </details>
  );
}

/** The pass's keys, oldest first: name (which the page changes) and hint, when made and last used (in words), today's free use, revocation. */
export function Keys({ pass, dashboard }: Props) {
  const live = pass.keys.some((k) => !k.revokedAt);
  const { now } = dashboard;
  return (
    <section class="card">
      <h2>Keys</h2>
      {live ? null : <NoLiveKey pass={pass} />}
      {pass.keys.length === 0 ? null : (
        <table id="keys" class="stack">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Free today</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="visually-hidden">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {pass.keys.map((k) => {
              const { name = null, lastUsedAt = null } = dashboard.keys[k.id] ?? {};
              return (
                <tr data-key-id={k.id} class={k.revokedAt ? 'revoked' : undefined}>
                  <td class="key" data-label="Key">
                    {name === null ? null : (
                      <>
                        <span class="key-name breakable">{name}</span>
                        <br />
                      </>
                    )}
                    <code>{k.keyHint}</code>
                    {k.revokedAt ? null : <NameForm keyId={k.id} keyHint={k.keyHint} name={name} />}
                  </td>
                  <td data-label="Created">
                    <Ago at={k.createdAt} now={now} />
                  </td>
                  <td class="last-used" data-label="Last used">
                    <Ago at={lastUsedAt} now={now} />
                  </td>
                  <td class="free-used" data-label="Free today">
                    <meter min={0} max={pass.freeLimit} value={k.freeUsed}></meter> <span>{k.freeUsed}</span> / {pass.freeLimit}
                  </td>
                  {/* tabindex: focus moves here once the key is revoked and its button gone. */}
                  <td class="status" data-label="Status" tabindex={-1}>
                    {k.revokedAt ? (
                      <>
                        revoked <Ago at={k.revokedAt} now={now} />
                      </>
                    ) : (
                      'active'
                    )}
                  </td>
                  <td class="action">
                    {/* Both labels, one hidden, in the same place: the button is as wide armed as not, so arming moves no column. */}
                    {k.revokedAt ? null : (
                      <button type="button" class="revoke" data-key-id={k.id} disabled>
                        <span class="idle">Revoke</span>
                        <span class="armed">
                          Confirm: revoke<span class="visually-hidden"> {k.keyHint}</span>
                        </span>
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
