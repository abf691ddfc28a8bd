// What an analyst does with the call: transfer it while it is up, open a case, dispute the
// verdict, and download the evidence (bundle, report PDF, recording, capture).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, download, must } from "../../api/client.ts";
import { ErrorBox, Field, fieldError } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { words } from "../../lib/format.ts";
import { Dispute, OpenCase } from "./case-dispute.tsx";
import { callKey, isUp, withRetryAfter, type CallDetail } from "./shared.ts";

export function Actions({ call }: { call: CallDetail }) {
  return (
    <section className="card call-actions" aria-labelledby="actions-heading">
      <h2 id="actions-heading">Actions</h2>
      {isUp(call) ? <Transfer call={call} /> : null}
      <OpenCase call={call} />
      <Dispute call={call} />
      <Downloads call={call} />
    </section>
  );
}

function Transfer({ call }: { call: CallDetail }) {
  const queries = useQueryClient();
  const [target, setTarget] = useState("");
  const transfer = useMutation({
    mutationFn: (to: string) =>
      must(api.POST("/calls/{call_id}/transfer", { params: { path: { call_id: call.id } }, body: { target: to } })),
    onSuccess: () => {
      featureUsed("call.transfer");
      void queries.invalidateQueries({ queryKey: callKey(call.id), exact: true });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    transfer.mutate(target.trim());
  };
  return (
    <div className="action-block">
      <h3>Transfer the call</h3>
      <form onSubmit={submit} className="inline-form">
        <Field
          label="Transfer to"
          name="target"
          value={target}
          onChange={(e) => setTarget(e.target.value)}
          inputMode="tel"
          autoComplete="off"
          required
          hint="Digits, * and # only"
          error={transfer.error}
        />
        <button type="submit" disabled={transfer.isPending || !target.trim()}>
          {transfer.isPending ? "Transferring…" : "Transfer"}
        </button>
      </form>
      {transfer.data ? (
        <p role="status">
          Transfer to {transfer.data.target}: {words(transfer.data.status)} ({words(transfer.data.mode)}).
        </p>
      ) : null}
      {/* A 422 names the field (shown beside it); a 409 (the call is no longer up) or a 503 shows here. */}
      {transfer.error && !fieldError(transfer.error, "target") ? <ErrorBox error={transfer.error} /> : null}
    </div>
  );
}

type File = { key: string; label: string; path: string; filename: string; feature: string };

function filesOf(call: CallDetail): File[] {
  const base = `/calls/${call.id}`;
  const files: File[] = [
    {
      key: "bundle",
      label: "Download evidence bundle",
      path: `${base}/export`,
      filename: `call-${call.id}-evidence.zip`,
      feature: "call.export",
    },
    {
      key: "report",
      label: "Download report PDF",
      path: `${base}/report.pdf`,
      filename: `call-${call.id}-report.pdf`,
      feature: "call.report",
    },
  ];
  if (call.recording_available) {
    files.push({
      key: "wav",
      label: "Download recording",
      path: `${base}/recording`,
      filename: `call-${call.id}.wav`,
      feature: "call.recording.download",
    });
  }
  const captures = call.recording_pcap_paths?.length ?? 0;
  if (captures) {
    const filename = captures > 1 ? `call-${call.id}-captures.zip` : `call-${call.id}.pcap`;
    files.push({ key: "pcap", label: "Download capture", path: `${base}/pcap`, filename, feature: "call.pcap.download" });
  }
  return files;
}

function Downloads({ call }: { call: CallDetail }) {
  const [busy, setBusy] = useState<string | null>(null);
  const fetchFile = useMutation({
    mutationFn: async (file: File) => {
      setBusy(file.key);
      try {
        await download(file.path, file.filename);
        featureUsed(file.feature);
      } finally {
        setBusy(null);
      }
    },
  });
  return (
    <div className="action-block">
      <h3>Downloads</h3>
      <div className="actions">
        {filesOf(call).map((file) => (
          <button key={file.key} type="button" onClick={() => fetchFile.mutate(file)} disabled={busy !== null}>
            {busy === file.key ? "Preparing…" : file.label}
          </button>
        ))}
      </div>
      <p className="muted">
        The evidence bundle holds the record, verdict, transcript, SIP log, recording and captures with their SHA-256.
      </p>
      <ErrorBox error={withRetryAfter(fetchFile.error)} />
    </div>
  );
}
