/** @jsxImportSource hono/jsx */
import type { DayUsage } from '../../ledger/store.js';
import { dayWords } from './when.js';

/**
 * A pass's decisions per UTC day as an SVG bar chart, drawn by the server: one bar a
 * day, free decisions at its foot and paid ones on top. Written by hand, as the eval's
 * reliability diagram is (src/eval/svg.ts, which the pages may not import): thirty
 * rectangles are less code than a charting library. Its colours are app.css's classes
 * on the page's custom properties, so it follows light and dark; it stretches to the
 * card's width (the bars are rectangles, nothing in it is text), and a screen reader
 * reads its title and description.
 */

const WIDTH = 300;
const HEIGHT = 100;

const decisions = (d: DayUsage) => d.free + d.paid;

/** What the chart says in words: its title and description, and the figure's caption. */
export function usageWords(days: DayUsage[]): { title: string; desc: string } {
  const total = days.reduce((sum, d) => ({ free: sum.free + d.free, paid: sum.paid + d.paid, credits: sum.credits + d.credits }), {
    free: 0,
    paid: 0,
    credits: 0,
  });
  const busiest = days.reduce((top, d) => (decisions(d) > decisions(top) ? d : top), days[0]);
  const title = `Decisions per UTC day, ${dayWords(days[0].day)} to ${dayWords(days[days.length - 1].day)}`;
  const desc =
    decisions(busiest) === 0
      ? 'No decision was charged to this pass in these days.'
      : `${total.free} free and ${total.paid} paid with ${total.credits} credits in all; the busiest day, ${dayWords(busiest.day)}, had ${decisions(busiest)}.`;
  return { title, desc };
}

export function UsageChart({ days }: { days: DayUsage[] }) {
  const tallest = Math.max(1, ...days.map(decisions));
  const scale = (n: number) => (n / tallest) * (HEIGHT - 4);
  const { title, desc } = usageWords(days);
  const slot = WIDTH / days.length;
  return (
    <svg
      class="usage-chart"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      preserveAspectRatio="none"
      role="img"
      aria-labelledby="usage-chart-title usage-chart-desc"
    >
      <title id="usage-chart-title">{title}</title>
      <desc id="usage-chart-desc">{desc}</desc>
      {days.map((d, i) => {
        const x = i * slot + 1;
        const free = scale(d.free);
        const paid = scale(d.paid);
        return (
          <g data-day={d.day}>
            <title>{`${dayWords(d.day)}: ${d.free} free, ${d.paid} paid (${d.credits} credits)`}</title>
            {d.free > 0 ? <rect class="free" x={x} y={HEIGHT - free} width={slot - 2} height={free} /> : null}
            {d.paid > 0 ? <rect class="paid" x={x} y={HEIGHT - free - paid} width={slot - 2} height={paid} /> : null}
          </g>
        );
      })}
      <line class="base" x1={0} y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} vector-effect="non-scaling-stroke" />
    </svg>
  );
}
