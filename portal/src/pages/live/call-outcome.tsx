// How a call came out, as the inspector says it: the note that it has ended (the answer, who hung
// up, the Q.850 cause, what was billed) with a link to its record, and the verdict once it comes, or
// why there is none yet.
import { Link } from "wouter";
import { Probability, Recommendation } from "../../components/ui.tsx";
import { duration, when, words } from "../../lib/format.ts";
import { ANALYSIS_UNDER_WAY, type Inspect } from "./shared.ts";

export function Ended({ call }: { call: Inspect["call"] }) {
  const answer = [call.sip_code ? `SIP ${call.sip_code}` : null, call.end_reason ? words(call.end_reason) : null]
    .filter(Boolean)
    .join(", ");
  return (
    <div className="card ended" role="status" data-testid="inspector-ended">
      <p>
        <strong>This call has ended</strong>
        {call.ended_at ? ` at ${when(call.ended_at)}` : ""}
        {answer ? ` (${answer})` : ""}.{call.hangup_by ? ` Hung up by the ${words(call.hangup_by)}.` : ""}
        {call.q850_cause ? ` Q.850 cause ${call.q850_cause}${call.q850_text ? `: ${call.q850_text}` : ""}.` : ""}
        {call.billsec !== null && call.billsec !== undefined ? ` Billed ${duration(call.billsec)}.` : ""}
      </p>
      <p>
        <Link href={`/calls/${call.id}`}>Open the call&apos;s record</Link> for its recording, transcript and verdict.
      </p>
    </div>
  );
}

export function Verdict({ doc }: { doc: Inspect }) {
  const verdict = doc.verdict;
  let why = "The verdict comes after the call, once it is transcribed and analysed.";
  if (doc.pipeline.processing !== "full")
    why = `This destination is set to ${words(doc.pipeline.processing)}: calls through it are not analysed.`;
  else if (!doc.pipeline.sampled) why = "The sampling policy left this call out of analysis.";
  else if (!doc.live && !ANALYSIS_UNDER_WAY.includes(doc.pipeline.analysis_status))
    why = `No verdict: the analysis is ${words(doc.pipeline.analysis_status)}.`;
  else if (!doc.live) why = "The call is being transcribed and analysed; the verdict shows here when it comes.";
  return (
    <section className="card" aria-labelledby="verdict" aria-live="polite">
      <h2 id="verdict">Verdict</h2>
      {verdict ? (
        <div data-testid="inspector-verdict">
          {verdict.title ? <h3>{verdict.title}</h3> : null}
          <dl className="facts">
            <dt>Fraud probability</dt>
            <dd>
              <Probability value={verdict.probability} />
            </dd>
            <dt>Recommendation</dt>
            <dd>
              <Recommendation value={verdict.recommendation} />
            </dd>
            <dt>Category</dt>
            <dd>{words(verdict.category)}</dd>
          </dl>
          {verdict.summary ? <p>{verdict.summary}</p> : null}
        </div>
      ) : (
        <p className="muted">{why}</p>
      )}
    </section>
  );
}
