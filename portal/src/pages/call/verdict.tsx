// The verdict: probability, recommendation, category, entity, red flags, summary, the TCPA comment
// and a route alert with its evidence; without one, why not, and "Analyse now".
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, must } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { ErrorBox, Probability, Recommendation } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { when, words } from "../../lib/format.ts";
import { callKey, isAnalysing, isUp, type CallDetail } from "./shared.ts";

type Analysis = NonNullable<CallDetail["analysis"]>;

export function Verdict({ call }: { call: CallDetail }) {
  const analysis = call.analysis;
  return (
    <section className="card verdict" aria-labelledby="verdict-heading">
      <h2 id="verdict-heading">Verdict</h2>
      {analysis ? <AnalysisView analysis={analysis} call={call} /> : <NoVerdict call={call} />}
      {!analysis && call.has_route_alert ? <RouteAlert evidence={null} /> : null}
    </section>
  );
}

function AnalysisView({ analysis, call }: { analysis: Analysis; call: CallDetail }) {
  const flags = analysis.red_flags ?? [];
  return (
    <>
      {analysis.title ? <p className="verdict-title">{analysis.title}</p> : null}
      <div className="verdict-score">
        <span className="verdict-probability">
          <Probability value={analysis.probability} />
          <span className="muted"> fraud probability</span>
        </span>
        <Recommendation value={analysis.recommendation} />
      </div>
      <dl className="facts">
        <dt>Category</dt>
        <dd>{words(analysis.category)}</dd>
        <dt>Entity claimed</dt>
        <dd>{analysis.entity ?? "—"}</dd>
        {analysis.caller_identity ? (
          <>
            <dt>Caller identity</dt>
            <dd>{analysis.caller_identity}</dd>
          </>
        ) : null}
        {analysis.keywords?.length ? (
          <>
            <dt>Keywords</dt>
            <dd>{analysis.keywords.join(", ")}</dd>
          </>
        ) : null}
        <dt>Analysed</dt>
        <dd>
          {when(analysis.created_at)}
          {analysis.ai_mode ? ` (${analysis.ai_mode} tier)` : ""}
          {analysis.language ? `, language ${analysis.language}` : ""}
        </dd>
      </dl>
      <h3>Red flags</h3>
      {flags.length ? (
        <ul className="red-flags">
          {flags.map((flag, i) => (
            <li key={i}>{flag}</li>
          ))}
        </ul>
      ) : (
        <p className="muted">None raised.</p>
      )}
      <h3>Summary</h3>
      <p>{analysis.summary || call.transcript_summary || <span className="muted">No summary.</span>}</p>
      <h3>TCPA</h3>
      <p>{analysis.tcpa_comment || <span className="muted">No comment.</span>}</p>
      {analysis.route_alert || call.has_route_alert ? <RouteAlert evidence={analysis.route_alert ?? null} /> : null}
    </>
  );
}

/** False answer supervision: what the analysis heard on the called side, as evidence. */
function RouteAlert({ evidence }: { evidence: Record<string, unknown> | null }) {
  const kind = typeof evidence?.kind === "string" ? evidence.kind : null;
  const detail = typeof evidence?.detail === "string" ? evidence.detail : null;
  const rest = Object.entries(evidence ?? {}).filter(([key, value]) => key !== "kind" && key !== "detail" && value !== null);
  return (
    <div className="route-alert">
      <h3>Route alert{kind ? `: ${words(kind)}` : ""}</h3>
      <p>{detail ?? "The route answered the call before anybody was there (false answer supervision)."}</p>
      {rest.length ? (
        <dl className="facts">
          {rest.map(([key, value]) => (
            <FactPair key={key} name={key} value={value} />
          ))}
        </dl>
      ) : null}
    </div>
  );
}

function FactPair({ name, value }: { name: string; value: unknown }) {
  const shown =
    name === "callee_talk_ratio" && typeof value === "number"
      ? `${Math.round(value * 100)}% of the answered time`
      : name.endsWith("_sec") && typeof value === "number"
        ? `${value} s after the answer`
        : typeof value === "object"
          ? JSON.stringify(value)
          : String(value);
  const label = name === "callee_talk_ratio" ? "Called side heard" : name === "first_sound_at_sec" ? "First sound" : words(name);
  return (
    <>
      <dt>{label.charAt(0).toUpperCase() + label.slice(1)}</dt>
      <dd>{shown}</dd>
    </>
  );
}

/** Why there is no verdict, in the call's own terms. */
function reason(call: CallDetail): string {
  if (isUp(call)) return "The call is still up: it is analysed after it ends.";
  if (call.analysis_status === "queued") return "The analysis is queued: the verdict appears here in a moment.";
  if (call.analysis_status === "running") return "The analysis is running: the verdict appears here in a moment.";
  if (call.analysis_status === "failed") return `The analysis failed${call.processing_error ? `: ${call.processing_error}` : "."}`;
  if (call.processing === "relay_only") return "The destination relays its calls without recording them, so there is nothing to analyse.";
  if (call.processing === "record_only") return "The destination records its calls without analysing them automatically.";
  if (!call.sampled) return "The destination's sampling did not pick this call for automatic analysis.";
  if (call.analysis_status === "skipped") return `The analysis was skipped${call.processing_error ? `: ${call.processing_error}` : "."}`;
  if (call.analysis_status === "pending") return "The analysis has not started yet.";
  return "This call has no verdict.";
}

function NoVerdict({ call }: { call: CallDetail }) {
  const queries = useQueryClient();
  const analyse = useMutation({
    mutationFn: () => must(api.POST("/calls/{call_id}/analyze", { params: { path: { call_id: call.id } } })),
    onSuccess: (queued) => {
      featureUsed("call.analyze");
      // The page polls the call from here until the analysis settles.
      queries.setQueryData<CallDetail>(callKey(call.id), (old) => (old ? { ...old, analysis_status: queued.analysis_status } : old));
      void queries.invalidateQueries({ queryKey: callKey(call.id), exact: true });
    },
  });
  const busy = isAnalysing(call);
  const canAsk = !isUp(call) && !busy;
  return (
    <>
      <p className={busy ? "muted" : undefined} role={busy ? "status" : undefined}>
        {reason(call)}
      </p>
      <p className="muted">
        Transcript: {words(call.transcript_status)}; analysis: {words(call.analysis_status)}; processing: {words(call.processing)}
        {call.sampled ? "" : " (not sampled)"}.
      </p>
      {canAsk ? (
        <div className="actions">
          <button type="button" className="primary" onClick={() => analyse.mutate()} disabled={analyse.isPending}>
            {analyse.isPending ? "Asking…" : "Analyse now"}
          </button>
          <span className="muted">The analysis fee of your AI tier applies.</span>
        </div>
      ) : null}
      <ErrorBox error={explain(analyse.error)} />
    </>
  );
}

/** The API's refusal of "Analyse now", with what its code means. */
function explain(error: unknown): unknown {
  if (error instanceof ApiError && error.status === 409 && /relay.only/i.test(error.message)) {
    return new ApiError(409, `${error.message}: nothing was recorded on this call, so there is nothing to analyse`);
  }
  return error;
}
