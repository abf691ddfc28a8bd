// The call inspector (/app/live/{id}): one call read from GET /calls/{id}/inspect every two
// seconds while it is up: elapsed and remaining time, the SIP ladder as it grows, the media of each
// leg, signalling, the pipeline and the verdict when it comes; a transfer while the call is up.
// Once the call has ended the two-second polling stops; while its analysis is still on its way the
// page looks again every five seconds (for ten minutes at most) so the verdict shows when it comes.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link, useParams } from "wouter";
import { api, must, type Schemas } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { Empty, ErrorBox, Field, Loading, PageTitle, Probability, Recommendation, Status } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { count, duration, ms, when, words } from "../../lib/format.ts";
import { destinationOf, sinceSample, useNow } from "./shared.ts";

type Inspect = Schemas["Inspect"];
type Leg = Schemas["MediaLeg"];

const ANALYSIS_UNDER_WAY = ["pending", "queued", "running"];
const FOLLOW_UP_MS = 10 * 60_000;

const notFound = (error: unknown) => error instanceof ApiError && error.status === 404;

/** Every two seconds while the call is up; then every five while its verdict is on its way; then never. */
function pollEvery(data: Inspect | undefined, error: unknown): number | false {
  if (notFound(error)) return false;
  if (!data || data.live) return 2_000;
  const ended = Date.parse(data.call.ended_at ?? data.sampled_at);
  const waiting = !data.verdict && data.pipeline.processing === "full" && ANALYSIS_UNDER_WAY.includes(data.pipeline.analysis_status);
  return waiting && Date.now() - ended < FOLLOW_UP_MS ? 5_000 : false;
}

export default function LiveCallPage() {
  const { id } = useParams<{ id: string }>();
  const inspect = useQuery({
    queryKey: ["inspect", id],
    queryFn: () => must(api.GET("/calls/{call_id}/inspect", { params: { path: { call_id: id } } })),
    refetchInterval: (query) => pollEvery(query.state.data, query.state.error),
    staleTime: 0,
  });
  const now = useNow(1_000, inspect.data?.live ?? false);

  if (inspect.isPending) return <Loading what="Reading the call" />;
  if (inspect.isError && notFound(inspect.error)) {
    return (
      <div className="live-area">
        <PageTitle>Call not found</PageTitle>
        <p>No call of your account has this address. It may belong to another account, or the link may be mistyped.</p>
        <p>
          <Link href="/live">Back to the live calls</Link>
        </p>
      </div>
    );
  }
  if (!inspect.data) return <ErrorBox error={inspect.error} />;

  const doc = inspect.data;
  const { call } = doc;
  const gone = doc.live ? sinceSample(now, inspect.dataUpdatedAt) : 0;
  return (
    <div className="live-area">
      <PageTitle
        actions={
          <>
            <Status value={call.status} />
            <Link href="/live">All live calls</Link>
          </>
        }
      >
        Call from {call.ani || "an unknown caller"} to {call.dialed || "an unknown number"}
      </PageTitle>
      {inspect.isError ? <ErrorBox error={inspect.error} /> : null}
      {doc.live ? (
        <p className="muted" data-testid="inspector-live">
          Live: read every two seconds, last at {new Date(inspect.dataUpdatedAt).toLocaleTimeString()}.
        </p>
      ) : (
        <Ended call={call} />
      )}

      <section className="stats" aria-label="Time">
        <div className="stat">
          <div className="label">Elapsed</div>
          <div className="value" data-testid="elapsed">
            {duration(call.elapsed_sec + gone)}
          </div>
        </div>
        <div className="stat">
          <div className="label">Remaining</div>
          <div className="value">
            {call.remaining_sec === null || call.remaining_sec === undefined
              ? doc.live
                ? "no cap"
                : "—"
              : duration(Math.max(0, call.remaining_sec - gone))}
          </div>
        </div>
        <div className="stat">
          <div className="label">Length cap</div>
          <div className="value">{call.max_call_seconds ? duration(call.max_call_seconds) : "none"}</div>
        </div>
        <div className="stat">
          <div className="label">Answered</div>
          <div className="value small">{call.answered_at ? new Date(call.answered_at).toLocaleTimeString() : "not yet"}</div>
        </div>
      </section>

      {doc.live ? <TransferForm callId={call.id} status={call.status} /> : null}

      <div className="cols">
        <section className="card" aria-labelledby="call-facts">
          <h2 id="call-facts">The call</h2>
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <Status value={call.status} />
            </dd>
            <dt>Caller</dt>
            <dd>{call.ani || "—"}</dd>
            <dt>Dialed</dt>
            <dd>{call.dialed || "—"}</dd>
            <dt>Destination</dt>
            <dd>
              {destinationOf(call)} ({call.dest_transport}
              {call.dest_kind === "voice_ai" ? `, voice agent${call.dest_provider ? ` of ${call.dest_provider}` : ""}` : ""})
            </dd>
            {call.route_prefix ? (
              <>
                <dt>Route prefix</dt>
                <dd>{call.route_prefix}</dd>
              </>
            ) : null}
            {call.sub_customer ? (
              <>
                <dt>Sub-customer</dt>
                <dd>{call.sub_customer}</dd>
              </>
            ) : null}
            {call.external_id || call.external_name ? (
              <>
                <dt>External reference</dt>
                <dd>{[call.external_name, call.external_id].filter(Boolean).join(" · ")}</dd>
              </>
            ) : null}
            <dt>From address</dt>
            <dd>{call.src_ip}</dd>
            <dt>Media node</dt>
            <dd>{call.media_node ?? "—"}</dd>
            <dt>Started</dt>
            <dd>{when(call.started_at)}</dd>
            <dt>Answered</dt>
            <dd>{when(call.answered_at)}</dd>
            {call.ended_at ? (
              <>
                <dt>Ended</dt>
                <dd>{when(call.ended_at)}</dd>
              </>
            ) : null}
          </dl>
        </section>
        <section className="card" aria-labelledby="signalling">
          <h2 id="signalling">Signalling</h2>
          <dl className="facts">
            <dt>Post-dial delay</dt>
            <dd>{ms(doc.signalling.pdd_ms)}</dd>
            <dt>Answer delay</dt>
            <dd>{ms(doc.signalling.answer_delay_ms)}</dd>
            <dt>Early media</dt>
            <dd>{yesNo(doc.signalling.early_media)}</dd>
            <dt>Codec</dt>
            <dd>{doc.signalling.codec ?? "—"}</dd>
          </dl>
          <h3>Pipeline</h3>
          <dl className="facts">
            <dt>Processing</dt>
            <dd>{words(doc.pipeline.processing)}</dd>
            <dt>Sampled</dt>
            <dd>{doc.pipeline.sampled ? "yes" : "no (the sampling policy left it out)"}</dd>
            <dt>Transcript</dt>
            <dd>{words(doc.pipeline.transcript_status)}</dd>
            <dt>Analysis</dt>
            <dd>{words(doc.pipeline.analysis_status)}</dd>
            {doc.pipeline.processing_error ? (
              <>
                <dt>Error</dt>
                <dd className="error">{doc.pipeline.processing_error}</dd>
              </>
            ) : null}
          </dl>
        </section>
      </div>

      <Verdict doc={doc} />
      <Media doc={doc} />
      <Ladder messages={doc.ladder} live={doc.live} />
    </div>
  );
}

const yesNo = (value: boolean | null | undefined) => (value === null || value === undefined ? "—" : value ? "yes" : "no");

function Ended({ call }: { call: Inspect["call"] }) {
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

function TransferForm({ callId, status }: { callId: string; status: string }) {
  const queries = useQueryClient();
  const [target, setTarget] = useState("");
  const transfer = useMutation({
    mutationFn: (to: string) =>
      must(api.POST("/calls/{call_id}/transfer", { params: { path: { call_id: callId } }, body: { target: to } })),
    onSuccess: () => {
      featureUsed("live.transfer");
      void queries.invalidateQueries({ queryKey: ["inspect", callId] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    transfer.mutate(target.trim());
  };
  const fieldProblem = transfer.error instanceof ApiError && transfer.error.fields.target;
  return (
    <section className="card" aria-labelledby="transfer">
      <h2 id="transfer">Transfer</h2>
      <form onSubmit={submit} className="inline-form">
        <Field
          label="Transfer to"
          name="target"
          value={target}
          onChange={(event) => setTarget(event.target.value)}
          inputMode="tel"
          autoComplete="off"
          required
          error={transfer.error}
          hint={status === "active" ? "Digits, * and # only." : "Digits, * and # only. A call can be transferred once it is answered."}
        />
        <button type="submit" className="primary" disabled={transfer.isPending || !target.trim()}>
          {transfer.isPending ? "Transferring…" : "Transfer the call"}
        </button>
      </form>
      {transfer.error && !fieldProblem ? <ErrorBox error={transfer.error} /> : null}
      {transfer.data ? (
        <p role="status">
          Transfer to {transfer.data.target}: {words(transfer.data.status)} ({words(transfer.data.mode)}).
        </p>
      ) : null}
    </section>
  );
}

function Verdict({ doc }: { doc: Inspect }) {
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

const LEG_NAMES: Record<string, string> = { caller: "Caller", callee: "Callee" };
const legName = (key: string) => LEG_NAMES[key] ?? words(key);
const loss = (leg: Leg) => {
  const pct = leg.loss_pct === null || leg.loss_pct === undefined ? null : `${leg.loss_pct.toFixed(1)}%`;
  const lost = leg.lost === null || leg.lost === undefined ? null : count(leg.lost);
  return pct && lost ? `${lost} (${pct})` : (pct ?? lost ?? "—");
};
const fixed = (value: number | null | undefined, digits: number, unit = "") =>
  value === null || value === undefined ? "—" : `${value.toFixed(digits)}${unit}`;

function Media({ doc }: { doc: Inspect }) {
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

function Ladder({ messages, live }: { messages: Schemas["SipLogMessage"][]; live: boolean }) {
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
