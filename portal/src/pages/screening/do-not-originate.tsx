// The do-not-originate list: numbers that never place calls (the account's inbound-only numbers,
// a list it keeps), so a call claiming one is spoofed. Add one with a label, paste many (one a line,
// or separated by commas), remove; paged. A refused number shows beside the field it came from.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ApiError } from "../../api/errors.ts";
import { ConfirmButton, Empty, ErrorBox, Field, Loading, Pager, TextField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { when } from "../../lib/format.ts";
import { addDno, DNO_KEY, readDno, removeDno } from "./api.ts";

const PAGE = 50;
/** What the API takes in one request. */
const MAX_PASTED = 10_000;

/** The refusal's fields folded onto the form's own: "numbers.3" is the pasted list's. */
function onField(error: unknown, field: string): unknown {
  if (!(error instanceof ApiError)) return error;
  const messages = Object.entries(error.fields)
    .filter(([name]) => name === field || name.startsWith(`${field}.`))
    .map(([name, msg]) => (name === field ? msg : `line ${Number(name.slice(field.length + 1)) + 1}: ${msg}`));
  if (!messages.length) return error;
  return new ApiError(error.status, error.message, { ...error.fields, [field]: messages.join("; ") }, error.retryAfter);
}

const named = (error: unknown, fields: string[]) =>
  error instanceof ApiError &&
  Object.keys(error.fields).length > 0 &&
  Object.keys(error.fields).every((f) => fields.some((n) => f === n || f.startsWith(`${n}.`)));

/** The pasted text's numbers: one a line, or separated by commas, semicolons or spaces. */
export const pasted = (text: string) =>
  text
    .split(/[\n,;\t]+/)
    .map((line) => line.trim().replace(/[\s().-]/g, ""))
    .filter(Boolean);

export function DoNotOriginate() {
  const [offset, setOffset] = useState(0);
  const list = useQuery({
    queryKey: [...DNO_KEY, offset],
    queryFn: () => readDno(PAGE, offset),
    placeholderData: keepPreviousData,
  });
  const items = list.data?.items ?? [];
  // Removing the last number of a page moves back to the page before it.
  if (list.data && !items.length && offset > 0 && !list.isPlaceholderData) setOffset(Math.max(0, offset - PAGE));
  return (
    <section className="card" aria-labelledby="screening-dno">
      <h2 id="screening-dno">Do-not-originate list</h2>
      <p className="muted">
        Numbers that only take calls and never place them: your inbound-only numbers, help lines, numbers you keep for others. A call
        showing one as its caller ID is spoofed; the rule &quot;On the do-not-originate list&quot; above says what happens to it.
      </p>
      <div className="cols screening-dno-forms">
        <AddOne />
        <PasteMany />
      </div>
      {list.isPending ? <Loading what="Reading the list" /> : null}
      <ErrorBox error={list.error} />
      {list.data ? (
        <p data-testid="dno-total">
          {list.data.total === 0
            ? "No number on the list yet."
            : `${list.data.total.toLocaleString()} ${list.data.total === 1 ? "number" : "numbers"} on the list.`}
        </p>
      ) : null}
      {items.length ? <NumberTable items={items} /> : list.data && offset === 0 ? <Empty>Add a number above.</Empty> : null}
      {list.data ? <Pager total={list.data.total} limit={PAGE} offset={offset} onOffset={setOffset} /> : null}
    </section>
  );
}

function useAdd(onDone: () => void, event: string) {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: addDno,
    onSuccess: () => {
      featureUsed(event);
      onDone();
      void queries.invalidateQueries({ queryKey: DNO_KEY });
    },
  });
}

function AddOne() {
  const [number, setNumber] = useState("");
  const [label, setLabel] = useState("");
  const add = useAdd(() => {
    setNumber("");
    setLabel("");
  }, "screening.dno.add");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate({ number: number.trim(), ...(label.trim() ? { label: label.trim() } : {}) });
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="screening-dno-one">
      <h3 id="screening-dno-one">Add a number</h3>
      <Field
        label="Number"
        name="number"
        value={number}
        onChange={(e) => setNumber(e.target.value)}
        inputMode="tel"
        autoComplete="off"
        placeholder="+14155550100"
        error={add.error}
        hint="In international form, with its country code."
      />
      <Field
        label="Label (optional)"
        name="label"
        value={label}
        onChange={(e) => setLabel(e.target.value)}
        autoComplete="off"
        error={add.error}
      />
      <div className="actions">
        <button type="submit" className="primary" disabled={add.isPending || !number.trim()}>
          {add.isPending ? "Adding…" : "Add the number"}
        </button>
      </div>
      {add.isError && !named(add.error, ["number", "label"]) ? <ErrorBox error={add.error} /> : null}
    </form>
  );
}

function PasteMany() {
  const [text, setText] = useState("");
  const numbers = pasted(text);
  const add = useAdd(() => setText(""), "screening.dno.paste");
  const error = onField(add.error, "numbers");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate({ numbers });
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="screening-dno-many">
      <h3 id="screening-dno-many">Paste many</h3>
      <TextField
        label="Numbers"
        name="numbers"
        rows={5}
        value={text}
        onChange={(e) => setText(e.target.value)}
        error={error}
        hint={`One a line, or separated by commas; up to ${MAX_PASTED.toLocaleString()} at once. Numbers already listed are kept as they are.`}
      />
      <div className="actions">
        <button type="submit" className="primary" disabled={add.isPending || !numbers.length || numbers.length > MAX_PASTED}>
          {add.isPending
            ? "Adding…"
            : numbers.length === 0
              ? "Add numbers"
              : numbers.length === 1
                ? "Add 1 number"
                : `Add ${numbers.length.toLocaleString()} numbers`}
        </button>
      </div>
      {add.isError && !named(add.error, ["numbers"]) ? <ErrorBox error={add.error} /> : null}
    </form>
  );
}

function NumberTable({ items }: { items: { id: string; number: string; label: string | null; created_at: string }[] }) {
  const queries = useQueryClient();
  const remove = useMutation({
    mutationFn: removeDno,
    onSuccess: () => {
      featureUsed("screening.dno.remove");
      void queries.invalidateQueries({ queryKey: DNO_KEY });
    },
  });
  return (
    <>
      <div className="table-wrap">
        <table aria-label="Numbers on the do-not-originate list, newest first">
          <thead>
            <tr>
              <th scope="col">Number</th>
              <th scope="col">Label</th>
              <th scope="col">Added</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((n) => (
              <tr key={n.id} data-testid="dno-row" data-number={n.number}>
                <th scope="row" id={`dno-${n.id}`}>
                  {n.number}
                </th>
                <td>{n.label ?? "—"}</td>
                <td>{when(n.created_at)}</td>
                <td>
                  <ConfirmButton
                    question={`Remove ${n.number}?`}
                    confirm="Remove it"
                    label={`Remove ${n.number}`}
                    onConfirm={() => remove.mutate(n.id)}
                    busy={remove.isPending}
                    describedBy={`dno-${n.id}`}
                  >
                    Remove
                  </ConfirmButton>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ErrorBox error={remove.error} />
    </>
  );
}
