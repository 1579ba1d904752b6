/** @jsxImportSource hono/jsx */
import type { PassRecord } from '../../contract/index.js';
import type { PassDashboard } from '../passes.js';
import { DecisionLogSection, type DecisionLogView } from './decision-log.js';
import { Keys } from './keys.js';
import { documentOf, Layout, type PageProps } from './layout.js';
import { CodePanel } from './snippets.js';
import { Usage } from './usage.js';

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
        {active.length ? null : (
          <p id="no-key-reason" class="muted">
            Decide needs a live key of this pass to pay with: create one above.
          </p>
        )}
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

/** `/pass`: the pass's balance, its keys (revocable), today's free use, its usage of 30 days, a decision form, and its recent decisions when they are logged. */
export function passPage(props: PageProps & { dashboard: PassDashboard | null; log?: DecisionLogView | null }): Promise<string> {
  const { pass, dashboard } = props;
  return documentOf(
    <Layout {...props} title="decide: your pass" page="pass" withWidget={false}>
      {pass && dashboard ? (
        <>
          <h1>Your pass</h1>
          <Summary pass={pass} />
          <Keys pass={pass} dashboard={dashboard} />
          <Usage pass={pass} dashboard={dashboard} />
          <DecisionForm pass={pass} />
          <CodePanel origin={props.baseUrl} />
          {props.log ? <DecisionLogSection log={props.log} /> : null}
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
