// The call's facts (numbers, route, outcome, times and money), its timing (post-dial delay, answer
// delay, early media), its quality overall and per leg (the record's qos), and the DTMF it carried.
import { Fragment, type ReactNode } from "react";
import { Link } from "wouter";
import { Empty } from "../../components/ui.tsx";
import { count, duration, money, ms, when, words } from "../../lib/format.ts";
import type { CallDetail } from "./shared.ts";

function Facts({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl className="facts">
      {rows.map(([name, value]) => (
        <Fragment key={name}>
          <dt>{name}</dt>
          <dd>{value === null || value === undefined || value === "" ? "—" : value}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

const destinationOf = (call: CallDetail) => {
  const where = `${call.dest_host}:${call.dest_port} (${call.dest_transport})`;
  const label = call.routed_to_label ?? call.routed_destination_label;
  return label ? `${label}, ${where}` : where;
};

const perMinute = (rate: number | null) => (rate === null ? "—" : `${money(rate)} a minute`);

export function CallFacts({ call }: { call: CallDetail }) {
  const rows: [string, ReactNode][] = [
    ["Caller (ANI)", call.ani],
    ["Dialled", call.dialed],
    ["Destination country", call.dest_country],
    ["Destination", destinationOf(call)],
    ["Origin", words(call.origin)],
    ["Direction", words(call.direction)],
    ["Status", words(call.status)],
    ["SIP code", call.sip_code],
    ["End reason", words(call.end_reason)],
    ["Hung up by", words(call.hangup_by)],
    [
      "Q.850 cause",
      call.q850_cause === null || call.q850_cause === undefined
        ? null
        : `${call.q850_cause}${call.q850_text ? ` (${call.q850_text})` : ""}`,
    ],
    ["Started", when(call.started_at)],
    ["Answered", when(call.answered_at)],
    ["Ended", when(call.ended_at)],
    ["Duration", duration(call.duration_sec)],
    ["Billed seconds", count(call.billsec)],
    ["Charged", money(call.charged_amount)],
    ["Rate", perMinute(call.rate_applied)],
    ["Source IP", call.src_ip],
    ["SIP Call-ID", <code key="sip">{call.sip_call_id}</code>],
  ];
  if (call.external_id || call.external_name)
    rows.push(["External reference", [call.external_id, call.external_name].filter(Boolean).join(" · ")]);
  if (call.sub_customer) rows.push(["Sub-customer", call.sub_customer]);
  if (call.transfer_target)
    rows.push([
      "Transfer",
      `to ${call.transfer_target}: ${words(call.transfer_status)}${call.transfer_code ? ` (${call.transfer_code})` : ""}${call.transfer_at ? `, ${when(call.transfer_at)}` : ""}`,
    ]);
  if (call.case_id)
    rows.push([
      "Case",
      <Link key="case" href={`/cases/${call.case_id}`}>
        Open the call's case
      </Link>,
    ]);
  return (
    <section className="card" aria-labelledby="facts-heading">
      <h2 id="facts-heading">Call facts</h2>
      <Facts rows={rows} />
    </section>
  );
}

export function Timing({ call }: { call: CallDetail }) {
  const early = call.early_media === null || call.early_media === undefined ? null : call.early_media ? "Yes" : "No";
  return (
    <section className="card" aria-labelledby="timing-heading">
      <h2 id="timing-heading">Timing</h2>
      <Facts
        rows={[
          ["Post-dial delay", ms(call.pdd_ms)],
          ["Answer delay", ms(call.answer_delay_ms)],
          ["Early media", early],
          ["Codec", call.codec],
        ]}
      />
    </section>
  );
}

type Leg = {
  mos?: number | null;
  jitter_ms?: number | null;
  loss_pct?: number | null;
  lost?: number | null;
  packets?: number;
  rtt_ms?: number | null;
};

const fixed = (n: unknown, digits: number, unit = "") =>
  typeof n === "number" && Number.isFinite(n) ? `${n.toFixed(digits)}${unit}` : "—";

/** The record's qos: one object per leg (caller, callee), each the node's last counters for it. */
function legsOf(qos: CallDetail["qos"]): [string, Leg][] {
  if (!qos || typeof qos !== "object") return [];
  const source = "legs" in qos && qos.legs && typeof qos.legs === "object" ? (qos.legs as Record<string, unknown>) : qos;
  return Object.entries(source).filter((entry): entry is [string, Leg] => !!entry[1] && typeof entry[1] === "object");
}

const legName = (name: string) => (name === "caller" ? "Caller" : name === "callee" ? "Called side" : words(name));

export function Quality({ call }: { call: CallDetail }) {
  const legs = legsOf(call.qos);
  return (
    <section className="card" aria-labelledby="quality-heading">
      <h2 id="quality-heading">Quality</h2>
      <Facts
        rows={[
          ["MOS (worst leg)", fixed(call.mos, 2)],
          ["Jitter", fixed(call.jitter_ms, 1, " ms")],
          ["Packet loss", fixed(call.packet_loss_pct, 2, "%")],
        ]}
      />
      <h3>Per leg</h3>
      {legs.length ? (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Media quality per leg</caption>
            <thead>
              <tr>
                <th scope="col">Leg</th>
                <th scope="col" className="num">
                  MOS
                </th>
                <th scope="col" className="num">
                  Jitter
                </th>
                <th scope="col" className="num">
                  Loss
                </th>
                <th scope="col" className="num">
                  Lost
                </th>
                <th scope="col" className="num">
                  Packets
                </th>
                <th scope="col" className="num">
                  RTT
                </th>
              </tr>
            </thead>
            <tbody>
              {legs.map(([name, leg]) => (
                <tr key={name}>
                  <th scope="row">{legName(name)}</th>
                  <td className="num">{fixed(leg.mos, 2)}</td>
                  <td className="num">{fixed(leg.jitter_ms, 1, " ms")}</td>
                  <td className="num">{fixed(leg.loss_pct, 2, "%")}</td>
                  <td className="num">{count(leg.lost)}</td>
                  <td className="num">{count(leg.packets)}</td>
                  <td className="num">{fixed(leg.rtt_ms, 0, " ms")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <Empty>No per-leg figures for this call.</Empty>
      )}
    </section>
  );
}

export function Dtmf({ call }: { call: CallDetail }) {
  const digits = call.dtmf ?? [];
  return (
    <section className="card" aria-labelledby="dtmf-heading">
      <h2 id="dtmf-heading">DTMF</h2>
      {digits.length ? (
        <>
          <p>
            Digits: <code>{digits.map((d) => d.digit).join("")}</code>
          </p>
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">DTMF digits in the order they were pressed</caption>
              <thead>
                <tr>
                  <th scope="col" className="num">
                    After the answer
                  </th>
                  <th scope="col">Digit</th>
                  <th scope="col">Leg</th>
                  <th scope="col">Source</th>
                  <th scope="col" className="num">
                    Length
                  </th>
                </tr>
              </thead>
              <tbody>
                {digits.map((d, i) => (
                  <tr key={i}>
                    <td className="num">{fixed(d.t, 1, " s")}</td>
                    <th scope="row">{d.digit}</th>
                    <td>{legName(d.channel)}</td>
                    <td>{words(d.source)}</td>
                    <td className="num">{ms(d.ms)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : (
        <Empty>No DTMF digits on this call.</Empty>
      )}
    </section>
  );
}
