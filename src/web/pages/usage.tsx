/** @jsxImportSource hono/jsx */
import type { PassRecord } from '../../contract/index.js';
import type { PassDashboard } from '../passes.js';
import { UsageChart } from './usage-chart.js';
import { Day } from './when.js';

type Props = { pass: PassRecord; dashboard: PassDashboard };

/**
 * The pass's usage of the last 30 UTC days: the chart, its legend and scale in the
 * caption, and the same figures as a table, by day and key, for whoever cannot see
 * the bars or wants the numbers.
 */
export function Usage({ pass, dashboard }: Props) {
  const { usage } = dashboard;
  const tallest = Math.max(0, ...usage.map((d) => d.free + d.paid));
  const label = (keyId: string) => {
    const name = dashboard.keys[keyId]?.name;
    const hint = pass.keys.find((k) => k.id === keyId)?.keyHint ?? keyId;
    return name ? `${name} (${hint})` : hint;
  };
  const rows = usage
    .filter((d) => d.keys.length > 0)
    .reverse()
    .flatMap((d) => d.keys.map((k) => ({ day: d.day, ...k })));
  return (
    <section class="card" id="usage" aria-labelledby="usage-heading">
      <h2 id="usage-heading">Usage, the last 30 days</h2>
      <figure class="usage">
        <UsageChart days={usage} />
        <div class="usage-axis">
          <Day day={usage[0].day} />
          <span>today</span>
        </div>
        <figcaption>
          Decisions charged to this pass per UTC day: <span class="swatch free"></span> free, <span class="swatch paid"></span> paid with
          credits. {tallest === 0 ? 'None in these 30 days.' : `The tallest bar is ${tallest} ${tallest === 1 ? 'decision' : 'decisions'}.`}
        </figcaption>
      </figure>
      {rows.length === 0 ? null : (
        <details>
          <summary>The figures, by day and key</summary>
          <table id="usage-table" class="stack">
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Key</th>
                <th scope="col">Free</th>
                <th scope="col">Paid</th>
                <th scope="col">Credits</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr>
                  <td data-label="Day">
                    <Day day={r.day} />
                  </td>
                  <td data-label="Key" class="breakable">
                    {label(r.keyId)}
                  </td>
                  <td data-label="Free">{r.free}</td>
                  <td data-label="Paid">{r.paid}</td>
                  <td data-label="Credits">{r.credits}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </section>
  );
}
