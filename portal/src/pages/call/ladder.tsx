// The SIP ladder from GET /calls/{id}/sip-log: the parties (address:port) as columns with the SIP
// node among them, one arrow per message labelled with its method or status, and the time from the
// first message on the left; the plain text log (each message whole) below in a <details>.
import { useQuery } from "@tanstack/react-query";
import { api, must, type Schemas } from "../../api/client.ts";
import { Empty, ErrorBox, Loading } from "../../components/ui.tsx";
import { isUp, sipLogKey, type CallDetail } from "./shared.ts";

type Message = Schemas["SipLogMessage"];

export function SipLadder({ call }: { call: CallDetail }) {
  const up = isUp(call);
  const log = useQuery({
    queryKey: [...sipLogKey(call.id), call.status],
    queryFn: () => must(api.GET("/calls/{call_id}/sip-log", { params: { path: { call_id: call.id } } })),
    refetchInterval: up ? 2_000 : false,
  });
  return (
    <section className="card" aria-labelledby="ladder-heading">
      <h2 id="ladder-heading">SIP ladder</h2>
      {log.isPending ? (
        <Loading what="Loading the SIP messages" />
      ) : log.isError ? (
        <ErrorBox error={log.error} />
      ) : log.data.messages.length === 0 ? (
        <Empty>
          {up
            ? "The SIP messages are listed here once the call ends; the live view shows them as they come."
            : "No SIP messages were kept for this call."}
        </Empty>
      ) : (
        <>
          <p className="muted">
            SIP Call-ID <code>{log.data.sip_call_id}</code>: {log.data.messages.length} message{log.data.messages.length === 1 ? "" : "s"}.
          </p>
          <Diagram messages={log.data.messages} origin={call.origin} />
          <details className="ladder-text">
            <summary>The messages as text</summary>
            <pre>{log.data.text}</pre>
          </details>
        </>
      )}
    </section>
  );
}

type Party = { address: string; name: string };

/** The columns: the caller's side, the SIP node, then everyone the node spoke to, in order of appearance. */
export function partiesOf(messages: Message[], origin: string): Party[] {
  const first = messages[0];
  if (!first) return [];
  const node = first.direction === "out" ? first.fromip : first.toip;
  const others: string[] = [];
  for (const message of messages) {
    for (const address of [message.fromip, message.toip]) if (address !== node && !others.includes(address)) others.push(address);
  }
  const names = origin === "sip" ? ["Caller", "Destination"] : ["Destination"];
  const named = others.map((address, i) => ({ address, name: names[i] ?? `Party ${i + 1}` }));
  const nodeParty = { address: node, name: "SIP node" };
  // A call that came in over SIP starts from the caller: put the caller left of the node.
  return origin === "sip" && first.direction === "in" && named.length ? [named[0]!, nodeParty, ...named.slice(1)] : [nodeParty, ...named];
}

const COL = 190;
const LEFT = 86;
const TOP = 52;
const ROW = 30;

const labelOf = (message: Message) => message.status || message.method || message.first_line.split(" ")[0] || "?";

const TONES = ["request", "provisional", "success", "failure"] as const;

function tone(message: Message): (typeof TONES)[number] {
  const code = Number(message.status?.split(" ")[0]);
  if (!code) return "request";
  if (code < 200) return "provisional";
  if (code < 300) return "success";
  return "failure";
}

function Diagram({ messages, origin }: { messages: Message[]; origin: string }) {
  const parties = partiesOf(messages, origin);
  const column = new Map(parties.map((party, i) => [party.address, i]));
  const x = (address: string) => LEFT + COL / 2 + (column.get(address) ?? 0) * COL;
  const width = LEFT + parties.length * COL;
  const height = TOP + messages.length * ROW + 12;
  const t0 = Date.parse(messages[0]!.time_stamp);
  const summary = `SIP ladder of ${messages.length} messages between ${parties.map((p) => `${p.name} (${p.address})`).join(", ")}`;
  return (
    <div className="ladder-wrap" role="region" aria-label="SIP ladder diagram" tabIndex={0}>
      <svg className="ladder" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary}>
        <defs>
          {TONES.map((name) => (
            <marker
              key={name}
              id={`ladder-arrow-${name}`}
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto-start-reverse"
            >
              <path d="M0,0 L10,5 L0,10 z" className={`ladder-head ${name}`} />
            </marker>
          ))}
        </defs>
        <text x={4} y={18} className="ladder-axis">
          Time
        </text>
        {parties.map((party, i) => {
          const cx = LEFT + COL / 2 + i * COL;
          return (
            <g key={party.address}>
              <text x={cx} y={18} textAnchor="middle" className="ladder-party">
                {party.name}
              </text>
              <text x={cx} y={34} textAnchor="middle" className="ladder-address">
                {party.address}
              </text>
              <line x1={cx} x2={cx} y1={TOP - 10} y2={height - 4} className="ladder-life" />
            </g>
          );
        })}
        {messages.map((message, i) => {
          const y = TOP + i * ROW + ROW / 2;
          const from = x(message.fromip);
          const to = x(message.toip);
          const offset = (Date.parse(message.time_stamp) - t0) / 1000;
          const self = from === to;
          return (
            <g key={i} className={`ladder-msg ${tone(message)}`}>
              <title>
                {message.time_stamp} {message.direction === "in" ? "received" : "sent"}: {message.first_line}
              </title>
              <text x={4} y={y + 4} className="ladder-time">
                +{Number.isFinite(offset) ? offset.toFixed(3) : "?"} s
              </text>
              {self ? (
                <path
                  d={`M${from},${y - 6} h24 v12 h-22`}
                  className="ladder-line"
                  markerEnd={`url(#ladder-arrow-${tone(message)})`}
                  fill="none"
                />
              ) : (
                <line x1={from} x2={to} y1={y + 4} y2={y + 4} className="ladder-line" markerEnd={`url(#ladder-arrow-${tone(message)})`} />
              )}
              <text x={self ? from + 30 : (from + to) / 2} y={y} textAnchor={self ? "start" : "middle"} className="ladder-label">
                {labelOf(message)}
                {message.status && message.method ? ` (${message.method})` : ""}
              </text>
            </g>
          );
        })}
      </svg>
    </div>
  );
}
