// A transfer of a call that is up (POST /calls/{id}/transfer): the number to send it to, and what
// the SIP node did with it.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { ErrorBox, Field } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { words } from "../../lib/format.ts";
import { inspectKey } from "./shared.ts";

export function TransferForm({ callId, status }: { callId: string; status: string }) {
  const queries = useQueryClient();
  const [target, setTarget] = useState("");
  const transfer = useMutation({
    mutationFn: (to: string) =>
      must(api.POST("/calls/{call_id}/transfer", { params: { path: { call_id: callId } }, body: { target: to } })),
    onSuccess: () => {
      featureUsed("live.transfer");
      void queries.invalidateQueries({ queryKey: inspectKey(callId) });
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
