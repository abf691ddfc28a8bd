// The call page (/app/calls/{id}): the verdict, what screening found before the call rang, the
// stereo recording with its waveform and the transcript following it, the SIP ladder, timing,
// quality and DTMF, the call's facts, and what an analyst does with a call (transfer it while it is
// up, share it, open a case, dispute the verdict, download the evidence). While the call is up the
// page polls it every two seconds; after an "Analyse now" it polls until the analysis settles.
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "wouter";
import { api, must } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { ErrorBox, Loading, PageTitle, Status } from "../../components/ui.tsx";
import { Actions } from "./actions.tsx";
import { CallFacts, Dtmf, Quality, Timing } from "./facts.tsx";
import { SipLadder } from "./ladder.tsx";
import { RecordingAndTranscript } from "./player.tsx";
import { CallScreening } from "./screening.tsx";
import { callKey, isAnalysing, isUp, type CallDetail } from "./shared.ts";
import { Shares } from "./shares.tsx";
import { Verdict } from "./verdict.tsx";

/** After a call ends its automatic analysis starts within moments: watch a pending one this long. */
const PENDING_WATCH_MS = 10 * 60_000;

function pollEvery(call: CallDetail | undefined): number | false {
  if (!call) return false;
  if (isUp(call)) return 2_000;
  if (isAnalysing(call)) return 3_000;
  const ended = Date.parse(call.ended_at ?? call.started_at);
  if (call.analysis_status === "pending" && Date.now() - ended < PENDING_WATCH_MS) return 3_000;
  return false;
}

export function useCall(id: string) {
  return useQuery({
    queryKey: callKey(id),
    queryFn: () => must(api.GET("/calls/{call_id}", { params: { path: { call_id: id } } })),
    refetchInterval: (query) => pollEvery(query.state.data),
  });
}

export default function CallPage() {
  const { id = "" } = useParams<{ id: string }>();
  const call = useCall(id);

  if (call.isPending) return <Loading what="Loading the call" />;
  if (call.isError) {
    // Another account's call answers 404 too: the page says no more than that.
    if (call.error instanceof ApiError && (call.error.status === 404 || call.error.status === 422)) {
      return (
        <>
          <PageTitle>Call not found</PageTitle>
          <p>There is no call at this address on your account.</p>
          <p>
            <Link href="/calls">Back to the calls</Link>
          </p>
        </>
      );
    }
    return (
      <>
        <PageTitle>Call</PageTitle>
        <ErrorBox error={call.error} />
      </>
    );
  }
  // Keyed by the call: moving to another call starts every section (player, forms, secrets) afresh.
  return <CallView key={call.data.id} call={call.data} />;
}

function CallView({ call }: { call: CallDetail }) {
  const up = isUp(call);
  const heading = call.analysis?.title || `Call from ${call.ani ?? "an unknown number"} to ${call.dialed ?? "an unknown number"}`;
  return (
    <div className="call-page">
      <PageTitle
        actions={
          <>
            <Status value={call.status} />
            <Link href="/calls">All calls</Link>
          </>
        }
      >
        {heading}
      </PageTitle>
      {up ? (
        <p className="call-up" role="status">
          This call is up ({call.status}); the page refreshes every two seconds. <Link href={`/live/${call.id}`}>Watch it live</Link>
        </p>
      ) : null}
      <div className="cols">
        <Verdict call={call} />
        <CallFacts call={call} />
      </div>
      <CallScreening call={call} />
      <RecordingAndTranscript call={call} />
      <SipLadder call={call} />
      <div className="cols">
        <Timing call={call} />
        <Quality call={call} />
      </div>
      <Dtmf call={call} />
      <Actions call={call} />
      <Shares call={call} />
    </div>
  );
}
