// The stereo recording drawn as two waves (caller on top, the called side below) with play/pause
// and its clock, and the transcript beside it: the segment being played is highlighted and a click
// on a segment seeks there and plays. wavesurfer.js is imported here only, so only this page's
// chunk carries it. The recording comes from a short-lived link (GET /recording-token): the
// player fetches it whole once, and a lapsed link is renewed before another try.
import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import WaveSurfer from "wavesurfer.js";
import { api, must } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { Empty, ErrorBox, Loading } from "../../components/ui.tsx";
import { clock, transcriptKey, type CallDetail } from "./shared.ts";
import { playingAt, segmentsOf, speakerOf, type Segment } from "./transcript.ts";

export function RecordingAndTranscript({ call }: { call: CallDetail }) {
  const player = usePlayer(call.id, call.recording_available);
  return (
    <section className="card" aria-labelledby="recording-heading">
      <h2 id="recording-heading">Recording and transcript</h2>
      <div className="cols">
        <div className="player">
          <h3>Recording</h3>
          {call.recording_available ? <Player player={player} /> : <Empty>{noRecording(call)}</Empty>}
        </div>
        <div>
          <h3>Transcript</h3>
          <Transcript call={call} player={call.recording_available ? player : null} />
        </div>
      </div>
    </section>
  );
}

const noRecording = (call: CallDetail) =>
  call.status === "ringing" || call.status === "active"
    ? "The recording is stored when the call ends."
    : call.processing === "relay_only"
      ? "This call was relayed without a recording."
      : "No recording was stored for this call.";

type PlayerState = ReturnType<typeof usePlayer>;

function usePlayer(callId: string, enabled: boolean) {
  const waveRef = useRef<HTMLDivElement>(null);
  const surfer = useRef<WaveSurfer | null>(null);
  const token = useRef<{ callId: string; url: string; until: number } | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [phase, setPhase] = useState<"loading" | "ready" | "error">("loading");
  const [error, setError] = useState<unknown>(null);
  const [playing, setPlaying] = useState(false);
  const [time, setTime] = useState(0);
  const [duration, setDuration] = useState(0);

  /** The recording's link, renewed when it has lapsed (or when asked to after a failed load). */
  const recordingUrl = useCallback(
    async (renew: boolean) => {
      const held = token.current;
      if (!renew && held?.callId === callId && held.until > Date.now()) return held.url;
      const fresh = await must(api.GET("/calls/{call_id}/recording-token", { params: { path: { call_id: callId } } }));
      // The portal and the API share an origin: keep the link's path so the CSP's connect-src 'self' holds.
      const link = new URL(fresh.url, location.href);
      const url = `${link.pathname}${link.search}`;
      token.current = { callId, url, until: Date.now() + Math.max(0, fresh.expires_in - 10) * 1000 };
      return url;
    },
    [callId],
  );

  useEffect(() => {
    const container = waveRef.current;
    if (!enabled || !container) return;
    let live = true;
    setPhase("loading");
    setError(null);
    setPlaying(false);
    setTime(0);
    const nonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content || undefined;
    const ws = WaveSurfer.create({
      container,
      height: 56,
      cspNonce: nonce,
      normalize: true,
      dragToSeek: true,
      cursorColor: "#a4161a",
      cursorWidth: 2,
      // Two waves: the caller's leg (left channel) on top, the called side (right channel) below.
      splitChannels: [
        { waveColor: "#8fb4de", progressColor: "#0b5cad" },
        { waveColor: "#e3bd7c", progressColor: "#8a5300" },
      ],
    });
    surfer.current = ws;
    ws.on("ready", (seconds) => {
      if (!live) return;
      setDuration(seconds);
      setPhase("ready");
    });
    ws.on("timeupdate", (seconds) => live && setTime(Math.floor(seconds * 10) / 10));
    ws.on("play", () => live && setPlaying(true));
    ws.on("pause", () => live && setPlaying(false));
    ws.on("finish", () => live && setPlaying(false));
    void (async () => {
      // First with the link held (if any), then once more with a renewed one.
      for (const renew of [false, true]) {
        try {
          const url = await recordingUrl(renew);
          if (!live) return;
          await ws.load(url);
          return;
        } catch (err) {
          if (!live) return;
          if (renew || (err instanceof ApiError && err.status !== 401)) {
            setError(err instanceof ApiError ? err : new Error("The recording could not be loaded."));
            setPhase("error");
            return;
          }
        }
      }
    })();
    return () => {
      live = false;
      surfer.current = null;
      ws.destroy();
    };
  }, [enabled, attempt, recordingUrl]);

  const playPause = useCallback(() => void surfer.current?.playPause().catch(() => undefined), []);
  const skip = useCallback((seconds: number) => surfer.current?.skip(seconds), []);
  const playFrom = useCallback((seconds: number) => {
    const ws = surfer.current;
    if (!ws) return;
    ws.setTime(seconds);
    setTime(Math.floor(seconds * 10) / 10);
    void ws.play().catch(() => undefined);
  }, []);
  const retry = useCallback(() => {
    token.current = null;
    setAttempt((n) => n + 1);
  }, []);

  return { waveRef, phase, error, playing, time, duration, playPause, skip, playFrom, retry };
}

function Player({ player }: { player: PlayerState }) {
  const ready = player.phase === "ready";
  return (
    <>
      <div
        ref={player.waveRef}
        className="waveform"
        role="img"
        aria-label="Waveform of the recording: the caller's leg on top, the called side below"
      />
      <p className="legend muted">
        <span className="swatch caller" aria-hidden="true" /> Caller <span className="swatch callee" aria-hidden="true" /> Called side
      </p>
      {player.phase === "loading" ? <Loading what="Loading the recording" /> : null}
      {player.phase === "error" ? (
        <div className="actions">
          <ErrorBox error={player.error} />
          <button type="button" onClick={player.retry}>
            Try again
          </button>
        </div>
      ) : null}
      <div className="actions player-controls">
        <button type="button" className="primary" onClick={player.playPause} disabled={!ready}>
          {player.playing ? "Pause" : "Play"}
        </button>
        <button type="button" onClick={() => player.skip(-5)} disabled={!ready}>
          Back 5 s
        </button>
        <button type="button" onClick={() => player.skip(5)} disabled={!ready}>
          Forward 5 s
        </button>
        <span className="player-time" data-testid="player-time" data-value={player.time}>
          {clock(player.time)} / {clock(player.duration)}
        </span>
      </div>
    </>
  );
}

function Transcript({ call, player }: { call: CallDetail; player: PlayerState | null }) {
  const transcript = useQuery({
    queryKey: transcriptKey(call.id, call.transcript?.id),
    queryFn: () => must(api.GET("/calls/{call_id}/transcript", { params: { path: { call_id: call.id } } })),
    enabled: !!call.transcript,
    staleTime: Infinity,
  });
  const segments = useMemo(() => segmentsOf(transcript.data?.segments), [transcript.data]);

  if (!call.transcript) {
    const coming = ["pending", "queued", "running"].includes(call.transcript_status) && call.processing !== "relay_only";
    return <Empty>{coming ? "The transcript is not ready yet." : "This call has no transcript."}</Empty>;
  }
  if (transcript.isPending) return <Loading what="Loading the transcript" />;
  if (transcript.isError) {
    if (transcript.error instanceof ApiError && transcript.error.status === 404) return <Empty>This call has no transcript.</Empty>;
    return <ErrorBox error={transcript.error} />;
  }
  const meta = [
    transcript.data.language ? `Language ${transcript.data.language}` : null,
    transcript.data.audio_seconds ? `${clock(transcript.data.audio_seconds)} of audio` : null,
  ]
    .filter(Boolean)
    .join(" · ");
  return (
    <>
      {meta ? <p className="muted">{meta}</p> : null}
      {segments.length ? (
        <Segments segments={segments} player={player} />
      ) : transcript.data.text ? (
        <pre className="transcript transcript-text">{transcript.data.text}</pre>
      ) : (
        <Empty>Nothing was said.</Empty>
      )}
    </>
  );
}

function Segments({ segments, player }: { segments: Segment[]; player: PlayerState | null }) {
  const list = useRef<HTMLOListElement>(null);
  const current = player && player.phase === "ready" ? playingAt(segments, player.time) : -1;
  const following = !!player?.playing;

  // While playing, keep the highlighted segment in view inside the transcript's own scroll.
  useEffect(() => {
    const box = list.current;
    const item = box?.querySelector<HTMLElement>('[aria-current="true"]');
    if (!following || !box || !item) return;
    const top = item.offsetTop;
    if (top < box.scrollTop || top + item.offsetHeight > box.scrollTop + box.clientHeight)
      box.scrollTop = Math.max(0, top - box.clientHeight / 3);
  }, [current, following]);

  return (
    <ol className="transcript segments" ref={list} aria-label="Transcript segments">
      {segments.map((segment, i) => {
        const who = speakerOf(segment);
        const body = (
          <>
            <span className="t">{clock(segment.start)}</span>
            {who ? <span className={`speaker speaker-${segment.speaker ?? "other"}`}>{who}</span> : null}
            <span className="said">{segment.text}</span>
          </>
        );
        return (
          <li key={i}>
            {player ? (
              <button
                type="button"
                data-testid="transcript-segment"
                className={i === current ? "segment playing" : "segment"}
                aria-current={i === current ? "true" : undefined}
                onClick={() => player.playFrom(segment.start)}
              >
                {body}
              </button>
            ) : (
              <p className="segment">{body}</p>
            )}
          </li>
        );
      })}
    </ol>
  );
}
