// Confirmation of an AI agent's test call (/app/test-calls/{id}/confirm, the address its
// confirm_url names): who asked, what would ring and for how long, until when the request holds,
// and the person's decision. Nothing rings before a person confirms here; once confirmed the page
// follows the call's progress. A request that lapsed, or that was already decided, says so.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "wouter";
import { api, must } from "../../api/client.ts";
import { useDestinations } from "../../api/destinations.ts";
import { ApiError } from "../../api/errors.ts";
import { ErrorBox, Loading, PageTitle, Status } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { duration, when } from "../../lib/format.ts";
import { useNow } from "../live/shared.ts";
import { isFinal, plainError, Progress, SPEECH, sipAnswer, speechName, talkTime, type TestCall } from "./shared.tsx";

const status = (error: unknown) => (error instanceof ApiError ? error.status : null);

export default function ConfirmTestCallPage() {
  const { id } = useParams<{ id: string }>();
  const queries = useQueryClient();
  const key = ["test-call", id];
  const testCall = useQuery({
    queryKey: key,
    queryFn: () => must(api.GET("/customer/test-calls/{test_call_id}", { params: { path: { test_call_id: id } } })),
    refetchInterval: (query) => (query.state.data && !isFinal(query.state.data.status) ? 2_000 : false),
    staleTime: 0,
  });
  const destinations = useDestinations();

  const settle = (call: TestCall) => {
    queries.setQueryData(key, call);
    void queries.invalidateQueries({ queryKey: ["test-calls"] });
  };
  const confirm = useMutation({
    mutationFn: () => must(api.POST("/customer/test-calls/{test_call_id}/confirm", { params: { path: { test_call_id: id } } })),
    onSuccess: (call) => {
      featureUsed("test_call.confirm");
      settle(call);
    },
    // 409: it lapsed or was decided meanwhile; read where it stands now.
    onError: () => void queries.invalidateQueries({ queryKey: key }),
  });
  const cancel = useMutation({
    mutationFn: () => must(api.POST("/customer/test-calls/{test_call_id}/cancel", { params: { path: { test_call_id: id } } })),
    onSuccess: (call) => {
      featureUsed("test_call.cancel");
      settle(call);
    },
  });

  const call = testCall.data;
  const awaiting = call?.status === "awaiting_confirm";
  const now = useNow(1_000, awaiting);

  if (testCall.isPending) return <Loading what="Reading the test call" />;
  if (status(testCall.error) === 404) {
    return (
      <div className="test-calls-area">
        <PageTitle>Test call not found</PageTitle>
        <p>
          Your account has no test call at this address. The request may belong to another account: sign in with the account the AI agent is
          connected to, then open the link again.
        </p>
        <p>
          <Link href="/test-calls">Your test calls</Link>
        </p>
      </div>
    );
  }
  if (!call) return <ErrorBox error={testCall.error} />;

  const expiresAt = call.confirm_expires_at ? Date.parse(call.confirm_expires_at) : null;
  const left = expiresAt === null ? null : Math.max(0, Math.ceil((expiresAt - now) / 1000));
  const lapsed = call.status === "expired" || (awaiting && left === 0);
  const destination = call.destination_id ? destinations.data?.find((d) => d.id === call.destination_id) : undefined;
  const speech = SPEECH[call.speech];

  return (
    <div className="test-calls-area">
      <PageTitle actions={<Status value={lapsed ? "expired" : call.status} />}>Confirm a test call</PageTitle>
      <section className="card" aria-labelledby="request">
        <h2 id="request">The request</h2>
        <p>
          <strong>Nothing rings until a person confirms.</strong> An AI agent connected to your account asked the platform to place this
          test call. Confirming places a real call to <strong>{call.number}</strong>: that phone rings, an announcement says it is an
          automated test call, then {speech ? speech.what : `the ${speechName(call.speech)} sample`} plays for {call.seconds} seconds. The
          call is screened and charged like any other.
        </p>
        <dl className="facts">
          <dt>Asked by</dt>
          <dd data-testid="created-by">{call.created_by ?? "an AI agent"}</dd>
          <dt>Number to call</dt>
          <dd data-testid="number">{call.number}</dd>
          <dt>Speech</dt>
          <dd>{speechName(call.speech)}</dd>
          <dt>Length</dt>
          <dd>{call.seconds} seconds</dd>
          <dt>Caller ID shown</dt>
          <dd>{call.caller_id ?? "the platform's own number"}</dd>
          <dt>Destination</dt>
          <dd>
            {destination
              ? `${destination.label || `${destination.host}:${destination.port}`}${destination.is_default ? " (default)" : ""}`
              : call.destination_id
                ? "one of your destinations"
                : "your default destination"}
          </dd>
          {call.instruction ? (
            <>
              <dt>Instruction to the voice agent</dt>
              <dd>{call.instruction}</dd>
            </>
          ) : null}
          <dt>Asked at</dt>
          <dd>{when(call.created_at)}</dd>
          {call.confirm_expires_at ? (
            <>
              <dt>Lapses at</dt>
              <dd>{when(call.confirm_expires_at)}</dd>
            </>
          ) : null}
        </dl>
      </section>

      <section className="card" aria-labelledby="decision">
        {awaiting && !lapsed ? (
          <>
            <h2 id="decision">Your decision</h2>
            <p role="timer" data-testid="countdown">
              The request lapses in <strong>{duration(left)}</strong> if nobody confirms it.
            </p>
            <div className="actions">
              <button type="button" className="primary" onClick={() => confirm.mutate()} disabled={confirm.isPending || cancel.isPending}>
                {confirm.isPending ? "Confirming…" : "Confirm the call"}
              </button>
              <button type="button" className="danger" onClick={() => cancel.mutate()} disabled={confirm.isPending || cancel.isPending}>
                {cancel.isPending ? "Cancelling…" : "Cancel it"}
              </button>
            </div>
            {confirm.isError ? <ErrorBox error={plainError(confirm.error)} /> : null}
            {cancel.isError ? <ErrorBox error={plainError(cancel.error)} /> : null}
          </>
        ) : (
          <>
            <h2 id="decision">What happened</h2>
            {status(confirm.error) === 409 ? (
              <p className="error" role="alert">
                It could no longer be confirmed: it lapsed or was decided meanwhile.
              </p>
            ) : null}
            <Outcome call={call} lapsed={lapsed} />
            <DecidedActions call={call} cancel={() => cancel.mutate()} cancelling={cancel.isPending} />
            {cancel.isError ? <ErrorBox error={plainError(cancel.error)} /> : null}
          </>
        )}
      </section>
    </div>
  );
}

/** What became of the request, in words: lapsed, cancelled, or confirmed and under way or over. */
function Outcome({ call, lapsed }: { call: TestCall; lapsed: boolean }) {
  if (lapsed) {
    return (
      <p role="status" data-testid="outcome">
        Nobody confirmed it within ten minutes: the request lapsed and nothing rang. Ask the agent again if the call is still wanted.
      </p>
    );
  }
  const confirmed = call.confirmed_by ? (
    <>
      Confirmed by <strong>{call.confirmed_by}</strong> at {when(call.confirmed_at)}.
    </>
  ) : call.confirmed_at ? (
    <>Confirmed at {when(call.confirmed_at)}.</>
  ) : null;
  if (call.status === "cancelled") {
    return (
      <p role="status" data-testid="outcome">
        {confirmed ? <>{confirmed} </> : null}
        It was cancelled at {when(call.updated_at)}
        {call.confirmed_at || call.answered !== null ? "." : ": nothing rang."}
      </p>
    );
  }
  return (
    <div role="status" data-testid="outcome">
      <p>
        {confirmed ?? "This test call needed no confirmation: it was placed directly."} It is now <Status value={call.status} />.
      </p>
      <Progress call={call} />
      {call.status === "failed" ? (
        <p className="error">
          It failed: {call.error ?? sipAnswer(call)}
          {call.error && call.sip_code ? ` (${sipAnswer(call)})` : ""}.
        </p>
      ) : null}
      {call.status === "done" ? (
        <p>
          {call.answered ? `Answered, with ${talkTime(call.talk_seconds)} of talk` : "Not answered"}
          {call.sip_code ? ` (${sipAnswer(call)})` : ""}.
        </p>
      ) : null}
    </div>
  );
}

function DecidedActions({ call, cancel, cancelling }: { call: TestCall; cancel: () => void; cancelling: boolean }) {
  return (
    <div className="actions">
      {!isFinal(call.status) && call.status !== "awaiting_confirm" ? (
        <button type="button" className="danger" onClick={cancel} disabled={cancelling}>
          {cancelling ? "Cancelling…" : "Cancel it"}
        </button>
      ) : null}
      {call.call_id ? <Link href={`/calls/${call.call_id}`}>Open the screened call</Link> : null}
      <Link href="/test-calls">All test calls</Link>
    </div>
  );
}
