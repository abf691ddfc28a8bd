// The call inspector (/app/live/{id}): one call read from GET /calls/{id}/inspect every two
// seconds while it is up: elapsed and remaining time, the SIP ladder as it grows, the media of each
// leg, signalling, the pipeline and the verdict when it comes; a transfer while the call is up.
// Once the call has ended the two-second polling stops; while its analysis is still on its way the
// page looks again every five seconds (for ten minutes at most) so the verdict shows when it comes.
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "wouter";
import { api, must } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { ErrorBox, Loading, PageTitle, Status } from "../../components/ui.tsx";
import { duration, ms, when, words } from "../../lib/format.ts";
import { Ended, Verdict } from "./call-outcome.tsx";
import { LiveLadder } from "./live-ladder.tsx";
import { MediaPerLeg } from "./media-per-leg.tsx";
import { ANALYSIS_UNDER_WAY, destinationOf, inspectKey, sinceSample, useNow, type Inspect } from "./shared.ts";
import { TransferForm } from "./transfer-form.tsx";

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
    queryKey: inspectKey(id),
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
      <MediaPerLeg doc={doc} />
      <LiveLadder messages={doc.ladder} live={doc.live} />
    </div>
  );
}

const yesNo = (value: boolean | null | undefined) => (value === null || value === undefined ? "—" : value ? "yes" : "no");
