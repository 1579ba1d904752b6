/** @jsxImportSource hono/jsx */
import { documentOf, Layout, type PageProps } from './layout.js';
import { Snippets } from './snippets.js';
import { NewKeyPanel } from './new-key.js';

function curlSnippet(base: string): string {
  return `export DECIDE_API_KEY=dcd_api_…   # your key, from "Get an API key" above

curl -s ${base}/v1/decisions \\
  -H "Authorization: Bearer $DECIDE_API_KEY" \\
  -H 'content-type: application/json' \\
  -d '{
    "mode": "choice",
    "question": "Which database should the team adopt for the new service?",
    "context": "The team knows SQL well. The service needs transactions across several tables.",
    "options": ["PostgreSQL", "MongoDB"]
  }'

curl -s ${base}/v1/usage -H "Authorization: Bearer $DECIDE_API_KEY"`;
}

function mcpSnippet(base: string): string {
  return `{
  "mcpServers": {
    "decide": {
      "type": "http",
      "url": "${base}/mcp",
      "headers": { "Authorization": "Bearer dcd_api_…" }
    }
  }
}`;
}

/** `/`: what the service is, how to call it, the verification, and "Create a key". */
export function homePage(props: PageProps): Promise<string> {
  const { verifier, pass, baseUrl } = props;
  const widget = verifier.widget;
  const needsWidget = widget !== null && pass === null;
  return documentOf(
    <Layout {...props} title="decide: structured decisions" page="home" withWidget={needsWidget}>
      <section class="intro">
        <h1>Structured decisions, with probabilities</h1>
        <p>
          Give <strong>decide</strong> a question, the facts you have, and the options: it asks a decision engine and answers with a
          probability for each option, a <em>signal</em> (directional, yes, no, unclear, needs-context) and how <em>sufficient</em> your
          context was. A <em>stress</em> test asks again with the options reversed and with each fact removed, and names the fact the answer
          hangs on.
        </p>
        <ul class="modes">
          <li>
            <code>choice</code>: compare 2 to 6 options
          </li>
          <li>
            <code>noul</code>: the probability of yes
          </li>
          <li>
            <code>score</code>: three ordered levels, low to high
          </li>
        </ul>
        <p class="muted">
          Each key gets 20 free standard decisions per UTC day; beyond them, and for stress tests (5 credits), the credits of the key's pass
          pay.
        </p>
      </section>

      <section class="card" id="get-key">
        <h2>Get an API key</h2>
        {verifier.provider === 'none' ? (
          <p class="notice" id="verify-off">
            <strong>Browser verification is off</strong> on this server (<code>DECIDE_VERIFY=none</code>): any browser gets a pass. This
            setting is meant for local use.
          </p>
        ) : null}
        {pass ? (
          <p id="pass-state">
            This browser holds a pass with <strong>{pass.passCredits}</strong> credits. <a href="/pass">Open your pass page</a>.
          </p>
        ) : (
          <p id="pass-state">
            This browser is verified once; its <em>pass</em> then holds your keys and credits, and the keys work from any machine.
          </p>
        )}
        {needsWidget && widget ? (
          <div
            class={`${widget.className} widget`}
            data-sitekey={widget.siteKey}
            data-callback="decideVerified"
            data-expired-callback="decideVerificationExpired"
            data-error-callback="decideVerificationError"
          ></div>
        ) : null}
        <p>
          {/* Disabled until the page's script runs: without it the button would do nothing. */}
          <button id="create-key" type="button" data-has-pass={pass ? '1' : '0'} data-needs-token={needsWidget ? '1' : '0'} disabled>
            Create a key
          </button>
        </p>
        <NewKeyPanel>
          <p>With it, a first decision over HTTP, or from TypeScript with the typed client:</p>
          <Snippets id="key-code" origin={baseUrl} />
          <p>
            <a href="/pass">Your pass page</a> lists your keys and today's free use, and has a form to make a decision.
          </p>
        </NewKeyPanel>
      </section>

      <section class="card">
        <h2>Call it</h2>
        <p>From a server or a script, never from public client code. Over HTTP:</p>
        {/* Focusable regions: on a phone they scroll sideways, and a keyboard must be able to scroll them too. */}
        {/* biome-ignore lint/a11y/useSemanticElements: the code block itself is the region a keyboard scrolls */}
        <pre id="curl-snippet" tabindex={0} role="region" aria-label="curl example">
          <code>{curlSnippet(baseUrl)}</code>
        </pre>
        <p>
          As a tool server for MCP clients (tools <code>weigh_decision</code>, <code>stress_test_decision</code>, <code>get_usage</code>):
        </p>
        {/* biome-ignore lint/a11y/useSemanticElements: as above */}
        <pre id="mcp-snippet" tabindex={0} role="region" aria-label="MCP client configuration">
          <code>{mcpSnippet(baseUrl)}</code>
        </pre>
        <p class="muted">
          Every field and error: <a href="/openapi.json">/openapi.json</a>. Today's processing times: <a href="/v1/metrics">/v1/metrics</a>.
        </p>
      </section>
    </Layout>,
  );
}
