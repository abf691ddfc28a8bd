// The media of each leg of a call: the SIP node's counters (packets, bytes, loss, jitter, RTT, MOS,
// errors) as last sampled while it is up, or as reported at its end; and the worst leg's figures.
import { Empty } from "../../components/ui.tsx";
import { count, words } from "../../lib/format.ts";
import type { Inspect, Leg } from "./shared.ts";

const LEG_NAMES: Record<string, string> = { caller: "Caller", callee: "Callee" };
const legName = (key: string) => LEG_NAMES[key] ?? words(key);
const loss = (leg: Leg) => {
  const pct = leg.loss_pct === null || leg.loss_pct === undefined ? null : `${leg.loss_pct.toFixed(1)}%`;
  const lost = leg.lost === null || leg.lost === undefined ? null : count(leg.lost);
  return pct && lost ? `${lost} (${pct})` : (pct ?? lost ?? "—");
};
const fixed = (value: number | null | undefined, digits: number, unit = "") =>
  value === null || value === undefined ? "—" : `${value.toFixed(digits)}${unit}`;

export function MediaPerLeg({ doc }: { doc: Inspect }) {
  const legs = doc.media?.legs ?? doc.quality?.legs ?? null;
  const entries = legs ? Object.entries(legs) : [];
  return (
    <section className="card" aria-labelledby="media">
      <h2 id="media">Media per leg</h2>
      {doc.media ? (
        <p className="muted">Measured by the SIP node at {new Date(doc.media.sampled_at).toLocaleTimeString()}.</p>
      ) : entries.length ? (
        <p className="muted">The final counters the SIP node reported at the end of the call.</p>
      ) : null}
      {entries.length ? (
        <div className="table-wrap">
          <table aria-label="Media per leg">
            <thead>
              <tr>
                <th scope="col">Leg</th>
                <th scope="col">Endpoint</th>
                <th scope="col" className="num">
                  Packets
                </th>
                <th scope="col" className="num">
                  Bytes
                </th>
                <th scope="col" className="num">
                  Lost
                </th>
                <th scope="col" className="num">
                  Jitter
                </th>
                <th scope="col" className="num">
                  RTT
                </th>
                <th scope="col" className="num">
                  MOS
                </th>
                <th scope="col" className="num">
                  Errors
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map(([key, leg]) => (
                <tr key={key} data-testid="media-leg" data-leg={key}>
                  <th scope="row">{legName(key)}</th>
                  <td>{leg.endpoint ?? "—"}</td>
                  <td className="num">{count(leg.packets)}</td>
                  <td className="num">{count(leg.bytes)}</td>
                  <td className="num">{loss(leg)}</td>
                  <td className="num">{fixed(leg.jitter_ms, 1, " ms")}</td>
                  <td className="num">{fixed(leg.rtt_ms, 0, " ms")}</td>
                  <td className="num">{fixed(leg.mos, 2)}</td>
                  <td className="num">{count(leg.errors)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <Empty>
          {doc.live
            ? "No media figures yet: the SIP node has not reported this call's packets."
            : "No media figures were kept for this call."}
        </Empty>
      )}
      {doc.quality && (doc.quality.mos !== null || doc.quality.jitter_ms !== null || doc.quality.packet_loss_pct !== null) ? (
        <p>
          Worst leg: MOS {fixed(doc.quality.mos, 2)}, jitter {fixed(doc.quality.jitter_ms, 1, " ms")}, loss{" "}
          {fixed(doc.quality.packet_loss_pct, 1, "%")}.
        </p>
      ) : null}
    </section>
  );
}
