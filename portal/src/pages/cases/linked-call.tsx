// The call a case or a ticket is about, at a glance: who called whom, when, the verdict, and a link
// to the call's own page. A call that is gone (deleted, or retention) is said so.
import { Link } from "wouter";
import type { Schemas } from "../../api/client.ts";
import { Probability, Recommendation, Status } from "../../components/ui.tsx";
import { when, words } from "../../lib/format.ts";

export function LinkedCall({
  callId,
  call,
  headingId,
}: {
  callId: string | null;
  call: Schemas["Call"] | null | undefined;
  headingId: string;
}) {
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>The call</h2>
      {!callId ? <p className="muted">Not about one call.</p> : null}
      {callId && !call ? <p className="muted">The call is no longer available.</p> : null}
      {call ? (
        <>
          <dl className="facts">
            <dt>From</dt>
            <dd>{call.ani ?? "—"}</dd>
            <dt>To</dt>
            <dd>{call.dialed ?? "—"}</dd>
            <dt>Started</dt>
            <dd>{when(call.started_at)}</dd>
            <dt>Status</dt>
            <dd>
              <Status value={call.status} />
            </dd>
            <dt>Fraud probability</dt>
            <dd>
              <Probability value={call.analysis?.probability} />
            </dd>
            <dt>Recommendation</dt>
            <dd>
              <Recommendation value={call.analysis?.recommendation} />
            </dd>
            {call.analysis ? (
              <>
                <dt>Category</dt>
                <dd>{words(call.analysis.category)}</dd>
              </>
            ) : null}
            {call.analysis?.title ? (
              <>
                <dt>Verdict</dt>
                <dd>{call.analysis.title}</dd>
              </>
            ) : null}
          </dl>
          <p>
            <Link href={`/calls/${call.id}`}>Open the call</Link>
          </p>
        </>
      ) : null}
    </section>
  );
}
