/** @jsxImportSource hono/jsx */
import type { LoggedDecision } from '../../ledger/store.js';
import { counted } from '../../contract/words.js';
import { CONFIDENCE_SCALE, confidenceValue, tenthPercent } from '../../contract/wording.js';

/** How many of a pass's latest decisions its page shows. */
export const RECENT_DECISIONS = 20;

/** What the pass page shows of the decision log: its pass's latest entries, and the time they are read against. */
export interface DecisionLogView {
  entries: LoggedDecision[];
  now: Date;
}

/** `3 minutes ago`: how long before `now`, in its largest whole unit. */
export function ago(iso: string, now: Date): string {
  const seconds = Math.max(0, Math.floor((now.getTime() - Date.parse(iso)) / 1000));
  if (seconds < 60) return 'just now';
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  const [size, noun] = units.find(([size]) => seconds >= size) ?? units[2];
  return `${counted(Math.floor(seconds / size), noun)} ago`;
}

/** `2026-11-22 10:15:03 UTC`: the exact instant, for the title of each time. */
const exactly = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

/** The door a decision came through, in words. */
const DOORS = { api: 'API', mcp: 'MCP', web: 'this page' } as const;

/**
 * `/pass`'s "Recent decisions": the latest decisions of the pass's keys, newest first,
 * as the operator's decision log keeps them (DECIDE_DECISION_LOG). Not rendered at all
 * when the log is off: a page that said "none" would suggest decisions are kept.
 */
export function DecisionLogSection({ log }: { log: DecisionLogView }) {
  return (
    <section class="card" id="decision-log" aria-labelledby="decision-log-title">
      <h2 id="decision-log-title">Recent decisions</h2>
      <p class="muted">
        The last {RECENT_DECISIONS} decisions paid by this pass's keys, through any channel, newest first. This server keeps a log of
        decisions for a while; reload the page to see new ones. Each top answer is shown with its probability; its confidence is how far the
        answer is from an even split of the options ({CONFIDENCE_SCALE}), not a probability.
      </p>
      {log.entries.length === 0 ? (
        <p id="decision-log-empty">No decisions logged yet.</p>
      ) : (
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Key</th>
              <th scope="col">Through</th>
              <th scope="col">Decision</th>
              <th scope="col">Top answer</th>
              <th scope="col">Confidence</th>
              <th scope="col">Signal</th>
              <th scope="col">Credits</th>
            </tr>
          </thead>
          <tbody>
            {log.entries.map((d) => (
              <tr>
                <td data-label="When">
                  <time datetime={d.decidedAt} title={exactly(d.decidedAt)}>
                    {ago(d.decidedAt, log.now)}
                  </time>
                </td>
                <td data-label="Key">
                  <code>{d.keyHint}</code>
                </td>
                <td data-label="Through">{DOORS[d.door]}</td>
                <td data-label="Decision">
                  {d.mode}, {d.depth}
                  {d.text ? <span class="logged-question breakable">{d.text.question}</span> : null}
                </td>
                <td data-label="Top answer">{d.topProbability === null ? d.top : `${d.top}, ${tenthPercent(d.topProbability)}`}</td>
                <td data-label="Confidence">{confidenceValue(d.confidence)}</td>
                <td data-label="Signal">{d.signal}</td>
                <td data-label="Credits">{d.credits === 0 ? 'free' : d.credits}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
