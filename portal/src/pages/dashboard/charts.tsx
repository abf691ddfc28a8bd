// The dashboard's charts per UTC day, drawn by uPlot (imported here only, so only the dashboard
// page loads it). Each chart is an image with a summary for screen readers, a line that reads the
// day under the pointer, and its numbers in a table under "Show the numbers"; it follows its
// box's width when the window resizes.
import { useEffect, useMemo, useRef, useState } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export type DailySeries = { label: string; values: number[]; color: string; fill: string };

const HEIGHT = 220;
const INTEGER_STEPS = [
  1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1_000, 2_000, 2_500, 5_000, 10_000, 20_000, 50_000, 100_000, 250_000, 1e6,
];
const dayLabel = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });

const epochOf = (date: string) => Date.parse(`${date}T00:00:00Z`) / 1000;
/** A UTC calendar day ("2026-01-31") as the reader's words, without shifting it by their time zone. */
export const dayOf = (date: string) => (Number.isNaN(epochOf(date)) ? date : dayLabel.format(new Date(epochOf(date) * 1000)));

/** One sentence a screen reader reads for the chart: the period, and each series' total and busiest day. */
function summaryOf(title: string, dates: string[], series: DailySeries[], format: (n: number) => string): string {
  if (!dates.length) return `${title}: no days in the period.`;
  const parts = series.map((s) => {
    const total = s.values.reduce((sum, v) => sum + v, 0);
    let top = 0;
    s.values.forEach((v, i) => {
      if (v > (s.values[top] ?? 0)) top = i;
    });
    const most = total > 0 ? `, most on ${dayOf(dates[top]!)} (${format(s.values[top] ?? 0)})` : "";
    return `${s.label}: ${format(total)} in all${most}`;
  });
  return `${title}, ${dates.length} days from ${dayOf(dates[0]!)} to ${dayOf(dates[dates.length - 1]!)}. ${parts.join("; ")}.`;
}

export function DailyChart({
  title,
  dates,
  series,
  format,
  integers = false,
}: {
  title: string;
  dates: string[];
  series: DailySeries[];
  format: (n: number) => string;
  /** Counts: the axis steps by whole numbers. */
  integers?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [hovered, setHovered] = useState<number | null>(null);
  const summary = useMemo(() => summaryOf(title, dates, series, format), [title, dates, series, format]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    // A day at zero draws no bar (not a hairline along the axis); the readout and the table still say 0.
    const data: uPlot.AlignedData = [dates.map(epochOf), ...series.map((s) => s.values.map((v) => (v === 0 ? null : v)))];
    const bars = uPlot.paths.bars!({ size: [0.8, 48], gap: 1 });
    const axis = { stroke: "#555d68", grid: { stroke: "#e5e8ec", width: 1 }, ticks: { stroke: "#d6dae0", width: 1 } };
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 200),
        height: HEIGHT,
        legend: { show: false },
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
        cursor: { y: false, points: { show: false }, drag: { x: false, y: false } },
        scales: {
          x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] },
          y: { range: (_u, _min, max) => [0, max !== null && max > 0 ? max * 1.1 : 1] },
        },
        axes: [
          axis,
          {
            ...axis,
            size: 64,
            incrs: integers ? INTEGER_STEPS : undefined,
            values: (_u, ticks) => ticks.map((v) => format(v)),
          },
        ],
        series: [
          {},
          ...series.map((s) => ({ label: s.label, stroke: s.color, fill: s.fill, width: 1, paths: bars, points: { show: false } })),
        ],
        hooks: { setCursor: [(u) => setHovered(u.cursor.idx ?? null)] },
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => {
      const width = Math.max(el.clientWidth, 200);
      if (width !== plot.width) plot.setSize({ width, height: HEIGHT });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [dates, series, format, integers]);

  const date = hovered === null ? undefined : dates[hovered];
  return (
    <figure className="dash-figure">
      <ul className="dash-legend" aria-hidden="true">
        {series.map((s) => (
          <li key={s.label}>
            <span className="dash-swatch" style={{ background: s.fill, borderColor: s.color }} />
            {s.label}
          </li>
        ))}
      </ul>
      <div className="chart" ref={box} role="img" aria-label={summary} />
      <p className="muted dash-readout" aria-hidden="true">
        {date
          ? `${dayOf(date)}: ${series.map((s) => `${s.label} ${format(s.values[hovered!] ?? 0)}`).join(", ")}`
          : "Point at a day to read its numbers."}
      </p>
      <figcaption>
        <details>
          <summary>Show the numbers</summary>
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">{title}</caption>
              <thead>
                <tr>
                  <th scope="col">Day (UTC)</th>
                  {series.map((s) => (
                    <th scope="col" className="num" key={s.label}>
                      {s.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {dates.map((d, i) => (
                  <tr key={d}>
                    <th scope="row">{dayOf(d)}</th>
                    {series.map((s) => (
                      <td className="num" key={s.label}>
                        {format(s.values[i] ?? 0)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      </figcaption>
    </figure>
  );
}
