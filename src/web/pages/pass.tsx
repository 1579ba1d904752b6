/** @jsxImportSource hono/jsx */
import type { PassRecord } from '../../contract/index.js';
import { documentOf, Layout, type PageProps } from './layout.js';

/** `2026-11-22 10:15 UTC`: the page speaks UTC, as the free allowance does. */
const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** Where a validation error of `field` is shown: beside its input. */
const ErrorFor = (props: { field: string }) => <p class="field-error" data-error-for={props.field} hidden></p>;

function Summary({ pass }: { pass: PassRecord }) {
  return (
    <section class="card">
      <dl class="summary">
        <div>
          <dt>Credits</dt>
          <dd id="pass-credits">{pass.passCredits}</dd>
        </div>
        <div>
          <dt>Funded</dt>
          <dd id="pass-funded">{pass.fundedEver ? 'yes' : 'not yet'}</dd>
        </div>
        <div>
          <dt>Pass</dt>
          <dd>
            <code id="pass-id">{pass.passId}</code>
          </dd>
        </div>
      </dl>
      <p class="muted">
        Each key has {pass.freeLimit} free standard decisions per UTC day ({pass.day} today). Beyond them a decision
        costs 1 credit of this pass, and a stress test 5.{' '}
        {pass.fundedEver ? null : (
          <span>
            The operator of this service funds a pass with <code>decide pass fund --pass {pass.passId} --credits N</code>.
          </span>
        )}
      </p>
    </section>
  );
}

function Keys({ pass }: { pass: PassRecord }) {
  return (
    <section class="card">
      <h2>Keys</h2>
      {pass.keys.length === 0 ? (
        <p>
          No keys yet: <a href="/">create one on the home page</a>.
        </p>
      ) : (
        <table id="keys">
          <thead>
            <tr>
              <th>Key</th>
              <th>Created</th>
              <th>Free today</th>
              <th>Status</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            {pass.keys.map((k) => (
              <tr data-key-id={k.id} class={k.revokedAt ? 'revoked' : undefined}>
                <td>
                  <code>{k.keyHint}</code>
                </td>
                <td>{when(k.createdAt)}</td>
                <td class="free-used">
                  <meter min={0} max={pass.freeLimit} value={k.freeUsed}></meter> <span>{k.freeUsed}</span> /{' '}
                  {pass.freeLimit}
                </td>
                <td class="status">{k.revokedAt ? `revoked ${when(k.revokedAt)}` : 'active'}</td>
                <td>
                  {k.revokedAt ? null : (
                    <button type="button" class="revoke" data-key-id={k.id} data-hint={k.keyHint}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function DecisionForm({ pass }: { pass: PassRecord }) {
  const active = pass.keys.filter((k) => !k.revokedAt);
  const levels = ['low', 'medium', 'high'];
  return (
    <section class="card">
      <h2>Make a decision</h2>
      <form id="decide-form" novalidate>
        <label>
          Paid by key
          <select name="keyId">
            {active.map((k) => (
              <option value={k.id}>{k.keyHint}</option>
            ))}
          </select>
        </label>
        <ErrorFor field="keyId" />
        <label>
          Mode
          <select name="mode">
            <option value="choice">choice: compare 2 to 6 options</option>
            <option value="noul">noul: the probability of yes</option>
            <option value="score">score: three ordered levels</option>
          </select>
        </label>
        <ErrorFor field="mode" />
        <label>
          Question <span class="muted">(8 to 300 characters)</span>
          <input name="question" type="text" autocomplete="off" />
        </label>
        <ErrorFor field="question" />
        <label>
          Context: the facts, as sentences or a list <span class="muted">(20 to 2000 characters)</span>
          <textarea name="context" rows={5}></textarea>
        </label>
        <ErrorFor field="context" />
        <fieldset data-mode="choice">
          <legend>Options (2 to 6; empty ones are left out)</legend>
          {[0, 1, 2, 3, 4, 5].map((i) => (
            <div class="option">
              <input name={`options.${i}`} type="text" aria-label={`Option ${i + 1}`} autocomplete="off" />
              <ErrorFor field={`options.${i}`} />
            </div>
          ))}
          <ErrorFor field="options" />
        </fieldset>
        <fieldset data-mode="score" hidden>
          <legend>Levels, from low to high</legend>
          {levels.map((level, i) => (
            <div class="option">
              <input name={`levels.${i}`} type="text" value={level} aria-label={`Level ${i + 1}`} />
              <ErrorFor field={`levels.${i}`} />
            </div>
          ))}
          <ErrorFor field="levels" />
        </fieldset>
        <label>
          Depth
          <select name="depth">
            <option value="standard">standard: free allowance, then 1 credit</option>
            <option value="stress">stress: reversed and leave-one-fact-out checks, 5 credits</option>
          </select>
        </label>
        <ErrorFor field="depth" />
        <p>
          <button type="submit" disabled={active.length === 0}>
            Decide
          </button>
        </p>
        <p id="decide-error" class="error" role="alert" hidden></p>
      </form>
      <section id="answer" class="answer" aria-live="polite" hidden></section>
    </section>
  );
}

/** `/pass`: the pass's balance, its keys (revocable), today's free use, and a decision form. */
export function passPage(props: PageProps): Promise<string> {
  const { pass } = props;
  return documentOf(
    <Layout {...props} title="decide: your pass" page="pass" withWidget={false}>
      {pass ? (
        <>
          <h1>Your pass</h1>
          <Summary pass={pass} />
          <Keys pass={pass} />
          <DecisionForm pass={pass} />
        </>
      ) : (
        <section class="card" id="no-pass">
          <h1>No pass in this browser</h1>
          <p>
            This browser has not been verified yet, or its pass cookie was cleared. <a href="/">Verify it on the home
            page</a> and create a key there.
          </p>
        </section>
      )}
    </Layout>,
  );
}
