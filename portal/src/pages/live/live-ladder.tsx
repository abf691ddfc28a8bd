// The SIP messages of a call as the SIP node writes them, oldest first, each with its time from the
// first.
import type { Schemas } from "../../api/client.ts";
import { Empty } from "../../components/ui.tsx";
import { when } from "../../lib/format.ts";

export function LiveLadder({ messages, live }: { messages: Schemas["SipLogMessage"][]; live: boolean }) {
  const sorted = [...messages].sort((a, b) => Date.parse(a.time_stamp) - Date.parse(b.time_stamp));
  const first = sorted[0] ? Date.parse(sorted[0].time_stamp) : 0;
  return (
    <section className="card" aria-labelledby="ladder">
      <h2 id="ladder">SIP ladder</h2>
      {sorted.length ? (
        <ol className="ladder live-ladder" data-testid="ladder">
          {sorted.map((message, index) => (
            <li key={`${message.time_stamp}-${index}`} className={`dir-${message.direction}`}>
              <span className="t" title={when(message.time_stamp)}>
                +{((Date.parse(message.time_stamp) - first) / 1000).toFixed(3)} s
              </span>
              <span className="dir">{message.direction === "in" ? "in" : message.direction === "out" ? "out" : message.direction}</span>
              <span className="hosts">
                {message.fromip} → {message.toip}
              </span>
              <code className="line">{message.first_line}</code>
            </li>
          ))}
        </ol>
      ) : (
        <Empty>
          {live
            ? "No SIP message recorded yet: they appear here as the SIP node writes them."
            : "No SIP message was recorded for this call."}
        </Empty>
      )}
    </section>
  );
}
