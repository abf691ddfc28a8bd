// Verified caller IDs: numbers the account has proven it answers. Adding one has the platform call
// it through the default destination and speak a six-digit code (good for ten minutes and five
// wrong tries); entering the code verifies it. Test calls and the dialer may then show it as their
// caller ID, and the scam sample and voice-agent mode ring only such numbers.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { Empty, ErrorBox, Field, fieldError, Loading } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { when } from "../../lib/format.ts";

type VerifiedNumber = Schemas["VerifiedNumber"];
const NUMBERS = ["verified-numbers"];

/** A refusal in plain words (the API's codes carry their explanation after a colon). */
function plain(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.status === 429)
    return new ApiError(
      429,
      `This number was called too often: try again${error.retryAfter ? ` in ${Math.ceil(error.retryAfter / 60)} min` : " later"}.`,
    );
  if (error.message === "Test calls disabled")
    return new ApiError(403, "Test calls are turned off for this account (Settings, call features): the code call is one.");
  return error;
}

/** The code's refusal (wrong_code, code_expired) in words, still next to the code's field. */
function plainCode(error: unknown): unknown {
  const message = error instanceof ApiError ? error.fields.code : undefined;
  if (!(error instanceof ApiError) || !message) return error;
  const text = message.startsWith("code_expired")
    ? "The code expired: call again for a new one."
    : message.includes("no tries left")
      ? "Wrong code, and no tries left: call again for a new one."
      : message.startsWith("wrong_code")
        ? "Wrong code."
        : message;
  return new ApiError(error.status, text, { code: text });
}

export function VerifiedNumbers() {
  const list = useQuery({ queryKey: NUMBERS, queryFn: () => must(api.GET("/customer/verified-numbers")) });
  return (
    <section className="card" aria-labelledby="team-numbers">
      <h2 id="team-numbers">Verified caller IDs</h2>
      <p className="muted">
        Test calls and the web dialer may show a verified number as their caller ID, and the scam sample rings only verified numbers. Adding
        a number has the platform call it through your default destination and speak a six-digit code, good for ten minutes; the call is
        charged like a test call.
      </p>
      <AddNumber />
      {list.isPending ? (
        <Loading what="Loading the numbers" />
      ) : list.isError ? (
        <ErrorBox error={list.error} />
      ) : list.data.length === 0 ? (
        <Empty>No number yet.</Empty>
      ) : (
        <NumberTable numbers={list.data} />
      )}
    </section>
  );
}

function AddNumber() {
  const queries = useQueryClient();
  const [number, setNumber] = useState("");
  const [label, setLabel] = useState("");
  const add = useMutation({
    mutationFn: () => must(api.POST("/customer/verified-numbers", { body: { number: number.trim(), label: label.trim() || null } })),
    onSuccess: () => {
      featureUsed("verified_numbers.add");
      setNumber("");
      setLabel("");
      void queries.invalidateQueries({ queryKey: NUMBERS });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  const error = plain(add.error);
  return (
    <form className="team-inline-form" onSubmit={submit} aria-label="New caller ID" noValidate>
      <Field
        label="Number to verify"
        name="number"
        value={number}
        onChange={(e) => setNumber(e.target.value)}
        inputMode="tel"
        autoComplete="off"
        placeholder="+14155550100"
        required
        error={error}
      />
      <Field
        label="What it is"
        name="label"
        value={label}
        onChange={(e) => setLabel(e.target.value)}
        autoComplete="off"
        placeholder="NOC desk"
        error={error}
      />
      <div className="team-form-buttons">
        <button type="submit" className="primary" disabled={add.isPending || !number.trim()}>
          {add.isPending ? "Calling…" : "Call it with a code"}
        </button>
      </div>
      {fieldError(error, "number") || fieldError(error, "label") ? null : <ErrorBox error={error} />}
    </form>
  );
}

function state(n: VerifiedNumber): { text: string; className: string } {
  if (n.verified) return { text: `Verified ${when(n.verified_at)}`, className: "badge team-ok" };
  if (n.code_expires_at && new Date(n.code_expires_at).getTime() > Date.now())
    return { text: `Waiting for the code (until ${when(n.code_expires_at)})`, className: "badge" };
  return { text: "Not verified: the code expired, call again", className: "badge team-off" };
}

function NumberTable({ numbers }: { numbers: VerifiedNumber[] }) {
  const queries = useQueryClient();
  const base = useId();
  const refresh = () => void queries.invalidateQueries({ queryKey: NUMBERS });
  const call = useMutation({
    mutationFn: (id: string) => must(api.POST("/customer/verified-numbers/{number_id}/call", { params: { path: { number_id: id } } })),
    onSuccess: () => {
      featureUsed("verified_numbers.call");
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE("/customer/verified-numbers/{number_id}", { params: { path: { number_id: id } } })),
    onSuccess: () => {
      featureUsed("verified_numbers.delete");
      refresh();
    },
  });
  const busy = call.isPending || remove.isPending;
  return (
    <>
      <div className="table-wrap">
        <table className="team-table">
          <caption className="visually-hidden">Caller IDs of the account</caption>
          <thead>
            <tr>
              <th scope="col">Number</th>
              <th scope="col">What it is</th>
              <th scope="col">State</th>
              <th scope="col">Added</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {numbers.map((n) => {
              const rowId = `${base}-${n.id}`;
              const shown = state(n);
              return (
                <tr key={n.id} data-number-id={n.id}>
                  <th scope="row" id={rowId}>
                    {n.number}
                  </th>
                  <td>{n.label || <span className="muted">—</span>}</td>
                  <td>
                    <span className={shown.className}>{shown.text}</span>
                  </td>
                  <td className="team-when">{when(n.created_at)}</td>
                  <td>
                    {n.verified ? null : <CodeForm number={n} />}
                    <div className="actions">
                      {n.verified ? null : (
                        <button type="button" onClick={() => call.mutate(n.id)} disabled={busy} aria-describedby={rowId}>
                          Call again with a new code
                        </button>
                      )}
                      <button type="button" className="danger" onClick={() => remove.mutate(n.id)} disabled={busy} aria-describedby={rowId}>
                        Delete
                      </button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <ErrorBox error={plain(call.error ?? remove.error)} />
    </>
  );
}

function CodeForm({ number }: { number: VerifiedNumber }) {
  const queries = useQueryClient();
  const [code, setCode] = useState("");
  const verify = useMutation({
    mutationFn: () =>
      must(
        api.POST("/customer/verified-numbers/{number_id}/verify", {
          params: { path: { number_id: number.id } },
          body: { code: code.trim() },
        }),
      ),
    onSuccess: () => {
      featureUsed("verified_numbers.verify");
      setCode("");
      void queries.invalidateQueries({ queryKey: NUMBERS });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate();
  };
  const error = plainCode(verify.error);
  return (
    <form className="team-row-form" onSubmit={submit} aria-label={`Verify ${number.number}`}>
      <Field
        label={`Code spoken to ${number.number}`}
        name="code"
        value={code}
        onChange={(e) => setCode(e.target.value)}
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9]*"
        maxLength={6}
        hint={number.code_expires_at ? `${number.attempts_left} tries left` : undefined}
        error={error}
      />
      <button type="submit" className="primary" disabled={verify.isPending || !code.trim()}>
        Verify
      </button>
      {fieldError(error, "code") ? null : <ErrorBox error={error} />}
    </form>
  );
}
