// A table whose rows carry a bar drawn in CSS beside their count: the risk buckets and the
// countries called. The numbers are the table's own text, so nothing hides behind a canvas.
import type { ReactNode } from "react";

export type BarRow = { key: string; label: ReactNode; count: number; tone?: "high" | "medium" | "low" };

export function BarTable({ caption, head, rows }: { caption: string; head: string; rows: BarRow[] }) {
  const total = rows.reduce((sum, r) => sum + r.count, 0);
  const max = Math.max(1, ...rows.map((r) => r.count));
  return (
    <div className="table-wrap">
      <table className="dash-bars">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{head}</th>
            <th scope="col" className="num">
              Calls
            </th>
            <th scope="col" className="num">
              Share
            </th>
            <th scope="col">
              <span className="visually-hidden">Bar</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              <th scope="row">{r.label}</th>
              <td className="num">{r.count.toLocaleString()}</td>
              <td className="num">{total ? `${((100 * r.count) / total).toFixed(1)}%` : "—"}</td>
              <td className="dash-bar-cell">
                <span
                  aria-hidden="true"
                  className={`dash-bar dash-bar-${r.tone ?? "plain"}`}
                  style={{ width: `${(100 * r.count) / max}%` }}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
