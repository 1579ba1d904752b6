/** @jsxImportSource hono/jsx */
import type { PassRecord } from '../../contract/index.js';
import { documentOf, Layout, type PageProps } from './layout.js';

/** `2026-11-22 10:15 UTC`: the page speaks UTC, as the free allowance does. */
const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** The id of the slot where a validation error of `field` is shown, beside its input. */
const errorId = (field: string) => `error-${field}`;

/** That slot; its input names it in `aria-describedby`, so a screen reader reads the error with the field. */
const ErrorFor = (props: { field: string }) => <p class="field-error" id={errorId(props.field)} data-error-for={props.field} hidden></p>;

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
            <code id="pass-id" class="breakable">
              {pass.passId}
            </code>
          </dd>
        </div>
      </dl>
      <p class="muted">
        Each key has {pass.freeLimit} free standard decisions per UTC day ({pass.day} today). Beyond them a decision costs 1 credit of this
        pass, and a stress test 5. {/* app.js hides it once the pass is funded while the page is open. */}
        {pass.fundedEver ? null : (
          <span id="fund-hint">
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
        <table id="keys" class="stack">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Created</th>
              <th scope="col">Free today</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="visually-hidden">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {pass.keys.map((k) => (
              <tr data-key-id={k.id} class={k.revokedAt ? 'revoked' : undefined}>
                <td data-label="Key">
                  <code>{k.keyHint}</code>
                </td>
                <td data-label="Created">{when(k.createdAt)}</td>
                <td class="free-used" data-label="Free today">
                  <meter min={0} max={pass.freeLimit} value={k.freeUsed}></meter> <span>{k.freeUsed}</span> / {pass.freeLimit}
                </td>
                {/* tabindex: focus moves here once the key is revoked and its button gone. */}
                <td class="status" data-label="Status" tabindex={-1}>
                  {k.revokedAt ? `revoked ${when(k.revokedAt)}` : 'active'}
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
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The choices of depth, each with what it does and what it costs. */
const DEPTHS = [
  { value: 'standard', text: 'free allowance, then 1 credit' },
  { value: 'stress', text: 'reversed and leave-one-fact-out checks, 5 credits' },
];

function DecisionForm({ pass }: { pass: PassRecord }) {
  const active = pass.keys.filter((k) => !k.revokedAt);
  const levels = ['low', 'medium', 'high'];
  return (
    <section class="card">
      <h2>Make a decision</h2>
      {/* POST, and Decide disabled until the script runs: the facts never travel in a URL. */}
      <form id="decide-form" method="post" novalidate>
        <label>
          Paid by key
          <select name="keyId" aria-describedby={errorId('keyId')}>
            {active.map((k) => (
              <option value={k.id}>{k.keyHint}</option>
            ))}
          </select>
        </label>
        <ErrorFor field="keyId" />
        <label>
          Mode
          <select name="mode" aria-describedby={errorId('mode')}>
            <option value="choice">choice: compare 2 to 6 options</option>
            <option value="noul">noul: the probability of yes</option>
            <option value="score">score: three ordered levels</option>
          </select>
        </label>
        <ErrorFor field="mode" />
        <label>
          Question <span class="muted">(8 to 300 characters)</span>
          <input name="question" type="text" autocomplete="off" aria-describedby={errorId('question')} />
        </label>
        <ErrorFor field="question" />
        <label>
          Context: the facts, as sentences or a list <span class="muted">(20 to 2000 characters)</span>
          <textarea name="context" rows={5} aria-describedby={errorId('context')}></textarea>
        </label>
        <ErrorFor field="context" />
        <fieldset data-mode="choice" aria-describedby={errorId('options')}>
          <legend>Options (2 to 6; empty ones are left out)</legend>
          {[0, 1, 2, 3, 4, 5].map((i) => (
            <div class="option">
              <input
                name={`options.${i}`}
                type="text"
                aria-label={`Option ${i + 1}`}
                autocomplete="off"
                aria-describedby={errorId(`options.${i}`)}
              />
              <ErrorFor field={`options.${i}`} />
            </div>
          ))}
          <ErrorFor field="options" />
        </fieldset>
        <fieldset data-mode="score" aria-describedby={errorId('levels')} hidden>
          <legend>Levels, from low to high</legend>
          {levels.map((level, i) => (
            <div class="option">
              <input
                name={`levels.${i}`}
                type="text"
                value={level}
                aria-label={`Level ${i + 1}`}
                aria-describedby={errorId(`levels.${i}`)}
              />
              <ErrorFor field={`levels.${i}`} />
            </div>
          ))}
          <ErrorFor field="levels" />
        </fieldset>
        {/* Radios, not a select: a closed select shows one line, and cut the stress test's cost off on a phone. */}
        <fieldset class="choices" aria-describedby={errorId('depth')}>
          <legend>Depth</legend>
          {DEPTHS.map((d) => (
            <label>
              <input type="radio" name="depth" value={d.value} checked={d.value === 'standard'} />
              <span>
                <strong>{d.value}</strong>: {d.text}
              </span>
            </label>
          ))}
          <ErrorFor field="depth" />
        </fieldset>
        <p>
          <button type="submit" data-keys={active.length} disabled>
            Decide
          </button>
        </p>
        {/* While deciding (app.js): the time so far, ticking, out of the live region, so it is read once. */}
        <p class="progress">
          <span id="decide-elapsed" aria-hidden="true"></span>
          <span id="decide-progress" role="status"></span>
        </p>
        <p id="decide-error" class="error" role="alert" tabindex={-1} hidden></p>
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
            This browser has not been verified yet, or its pass cookie was cleared. <a href="/">Verify it on the home page</a> and create a
            key there.
          </p>
        </section>
      )}
    </Layout>,
  );
}
