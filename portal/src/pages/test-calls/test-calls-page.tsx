// Test calls (/app/test-calls): have the platform dial a number through one of the account's
// destinations and play a speech sample, then watch it move through its states. The list is read
// every two seconds while any test call is not final; an AI agent's request waiting for a person
// links to its confirmation page.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link } from "wouter";
import { api, must, type Schemas } from "../../api/client.ts";
import { useDestinations } from "../../api/destinations.ts";
import { ApiError } from "../../api/errors.ts";
import { Empty, ErrorBox, Field, Loading, PageTitle, Pager, SelectField, Status } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { when } from "../../lib/format.ts";
import { useUrlState } from "../../lib/url-state.ts";
import { isFinal, plainError, Progress, SPEECH, sipAnswer, speechName, talkTime, type TestCall } from "./shared.tsx";

const PAGE = 20;
const sentence = (text: string | undefined) => (text ? `${text.charAt(0).toUpperCase()}${text.slice(1)}.` : undefined);
const FORM_FIELDS = ["number", "destination_id", "speech", "seconds", "caller_id"];

export default function TestCallsPage() {
  const [placedId, setPlacedId] = useState<string | null>(null);
  return (
    <div className="test-calls-area">
      <PageTitle>Test calls</PageTitle>
      <p className="muted">
        The platform dials a number through one of your destinations, announces an automated test call and plays a speech sample. The call
        is screened like any other and charged like a call.
      </p>
      <PlaceForm onPlaced={setPlacedId} />
      <TestCallList placedId={placedId} />
    </div>
  );
}

const destinationName = (d: Schemas["Destination"]) =>
  `${d.label || `${d.host}:${d.port}`}${d.kind === "voice_ai" ? " (voice agent)" : ""}${d.is_default ? " (default)" : ""}`;

function PlaceForm({ onPlaced }: { onPlaced: (id: string) => void }) {
  const queries = useQueryClient();
  const destinations = useDestinations();
  const numbers = useQuery({ queryKey: ["verified-numbers"], queryFn: () => must(api.GET("/customer/verified-numbers")) });
  const verified = (numbers.data ?? []).filter((n) => n.verified);

  const [number, setNumber] = useState("");
  const [destination, setDestination] = useState<string | null>(null);
  const [speech, setSpeech] = useState<"route_test" | "scam_sample">("route_test");
  const [seconds, setSeconds] = useState("30");
  const [callerId, setCallerId] = useState("");
  const chosenDestination = destination ?? destinations.data?.find((d) => d.is_default)?.id ?? "";

  const place = useMutation({
    mutationFn: () =>
      must(
        api.POST("/customer/test-calls", {
          body: {
            number: number.trim(),
            speech,
            seconds: Number(seconds),
            ...(chosenDestination ? { destination_id: chosenDestination } : {}),
            ...(callerId ? { caller_id: callerId } : {}),
          },
        }),
      ),
    onSuccess: (call) => {
      featureUsed("test_call.place");
      queries.setQueryData<TestCall[]>(["test-calls"], (list) => [call, ...(list ?? []).filter((c) => c.id !== call.id)]);
      void queries.invalidateQueries({ queryKey: ["test-calls"] });
      onPlaced(call.id);
    },
  });
  const error = plainError(place.error);
  const byField =
    error instanceof ApiError && Object.keys(error.fields).length > 0 && Object.keys(error.fields).every((f) => FORM_FIELDS.includes(f));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    place.mutate();
  };

  return (
    <section className="card" aria-labelledby="place">
      <h2 id="place">Place a test call</h2>
      <form onSubmit={submit} noValidate>
        <div className="grid">
          <Field
            label="Number to call"
            name="number"
            value={number}
            onChange={(event) => setNumber(event.target.value)}
            inputMode="tel"
            autoComplete="off"
            placeholder="+14155550123"
            required
            error={error}
          />
          <SelectField
            label="Destination"
            name="destination_id"
            value={chosenDestination}
            onChange={(event) => setDestination(event.target.value)}
            error={error}
            hint={
              destinations.isError
                ? "The destinations could not be read: the default destination is used."
                : destinations.data && !destinations.data.length
                  ? "Your account has no destination yet: add one before placing a test call."
                  : undefined
            }
          >
            {destinations.isPending ? <option value="">Reading the destinations…</option> : null}
            {!chosenDestination && !destinations.isPending ? <option value="">The account&apos;s default destination</option> : null}
            {(destinations.data ?? []).map((d) => (
              <option key={d.id} value={d.id}>
                {destinationName(d)}
              </option>
            ))}
          </SelectField>
          <SelectField
            label="Speech"
            name="speech"
            value={speech}
            onChange={(event) => setSpeech(event.target.value as typeof speech)}
            error={error}
            hint={sentence(SPEECH[speech]?.about)}
          >
            <option value="route_test">{SPEECH.route_test!.name}</option>
            <option value="scam_sample">{SPEECH.scam_sample!.name}</option>
          </SelectField>
          <Field
            label="Length in seconds"
            name="seconds"
            type="number"
            min={5}
            max={600}
            step={1}
            value={seconds}
            onChange={(event) => setSeconds(event.target.value)}
            error={error}
            hint="From 5 to 600."
          />
          <SelectField
            label="Caller ID"
            name="caller_id"
            value={callerId}
            onChange={(event) => setCallerId(event.target.value)}
            error={error}
            hint={
              numbers.isError
                ? "Your verified numbers could not be read: the platform's own number is used."
                : "Only your account's verified numbers can be shown to the called party."
            }
          >
            <option value="">The platform&apos;s own number</option>
            {verified.map((n) => (
              <option key={n.id} value={n.number}>
                {n.label ? `${n.number} (${n.label})` : n.number}
              </option>
            ))}
          </SelectField>
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={place.isPending || !number.trim()}>
            {place.isPending ? "Placing…" : "Place the test call"}
          </button>
        </div>
        {place.isError && !byField ? <ErrorBox error={error} /> : null}
      </form>
    </section>
  );
}

function TestCallList({ placedId }: { placedId: string | null }) {
  const queries = useQueryClient();
  const url = useUrlState();
  const offset = Math.max(0, Number(url.get("offset")) || 0);
  const list = useQuery({
    queryKey: ["test-calls"],
    queryFn: () => must(api.GET("/customer/test-calls")),
    refetchInterval: (query) => (query.state.data?.some((call) => !isFinal(call.status)) ? 2_000 : false),
    staleTime: 0,
  });
  const cancel = useMutation({
    mutationFn: (id: string) => must(api.POST("/customer/test-calls/{test_call_id}/cancel", { params: { path: { test_call_id: id } } })),
    onSuccess: (call) => {
      featureUsed("test_call.cancel");
      queries.setQueryData<TestCall[]>(["test-calls"], (calls) => calls?.map((c) => (c.id === call.id ? call : c)));
      void queries.invalidateQueries({ queryKey: ["test-calls"] });
    },
  });

  const placed = placedId ? list.data?.find((call) => call.id === placedId) : undefined;
  const items = list.data ?? [];
  const page = items.slice(offset, offset + PAGE);

  return (
    <>
      {placed ? <Placed call={placed} /> : null}
      <section aria-labelledby="list">
        <h2 id="list">Your test calls</h2>
        {list.isPending ? <Loading what="Reading the test calls" /> : null}
        <ErrorBox error={list.error} />
        {cancel.isError ? <ErrorBox error={plainError(cancel.error)} /> : null}
        {list.data && !items.length ? <Empty>No test call yet. Place one above.</Empty> : null}
        {page.length ? (
          <div className="table-wrap">
            <table aria-label="Test calls, newest first">
              <thead>
                <tr>
                  <th scope="col">Status</th>
                  <th scope="col">Number</th>
                  <th scope="col">Speech</th>
                  <th scope="col" className="num">
                    Seconds
                  </th>
                  <th scope="col">Caller ID</th>
                  <th scope="col">Asked by</th>
                  <th scope="col">Created</th>
                  <th scope="col">Answered</th>
                  <th scope="col">SIP answer</th>
                  <th scope="col" className="num">
                    Talk time
                  </th>
                  <th scope="col">Error</th>
                  <th scope="col">Screened call</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {page.map((call) => (
                  <tr key={call.id} data-testid="test-call-row" data-test-call-id={call.id} data-status={call.status}>
                    <td>
                      <Status value={call.status} />
                    </td>
                    <td>{call.number}</td>
                    <td>{speechName(call.speech)}</td>
                    <td className="num">{call.seconds}</td>
                    <td>{call.caller_id ?? "platform's own"}</td>
                    <td>{call.created_by ?? "—"}</td>
                    <td className="when">{when(call.created_at)}</td>
                    <td>{call.answered === null ? "—" : call.answered ? "yes" : "no"}</td>
                    <td>{sipAnswer(call)}</td>
                    <td className="num">{talkTime(call.talk_seconds)}</td>
                    <td>{call.error ? <span className="error">{call.error}</span> : "—"}</td>
                    <td>
                      {call.call_id ? (
                        <Link href={`/calls/${call.call_id}`} aria-label={`Open the call of the test call to ${call.number}`}>
                          Open the call
                        </Link>
                      ) : (
                        "—"
                      )}
                    </td>
                    <td>
                      <div className="actions">
                        {call.status === "awaiting_confirm" ? (
                          <Link href={`/test-calls/${call.id}/confirm`} aria-label={`Confirm the test call to ${call.number}`}>
                            Confirm
                          </Link>
                        ) : null}
                        {!isFinal(call.status) ? (
                          <button
                            type="button"
                            className="danger"
                            onClick={() => cancel.mutate(call.id)}
                            disabled={cancel.isPending && cancel.variables === call.id}
                            aria-label={`Cancel the test call to ${call.number}`}
                          >
                            Cancel
                          </button>
                        ) : null}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        <Pager total={items.length} limit={PAGE} offset={offset} onOffset={(next) => url.set({ offset: next || null })} />
        {items.some((call) => !isFinal(call.status)) ? (
          <p className="muted">Read every two seconds while a test call is under way.</p>
        ) : null}
      </section>
    </>
  );
}

/** The test call just placed, as it moves through its states. */
function Placed({ call }: { call: TestCall }) {
  return (
    <section className="card" aria-labelledby="placed" data-testid="placed-test-call">
      <h2 id="placed">
        Test call to {call.number}: <Status value={call.status} />
      </h2>
      {call.status === "awaiting_confirm" ? (
        <p>
          It waits for a person to confirm it. <Link href={`/test-calls/${call.id}/confirm`}>Confirm or cancel it</Link>.
        </p>
      ) : null}
      <Progress call={call} />
      {call.status === "failed" ? (
        <p className="error">
          It failed: {call.error ?? sipAnswer(call)}
          {call.error && call.sip_code ? ` (${sipAnswer(call)})` : ""}.
        </p>
      ) : null}
      {call.status === "done" ? (
        <p>
          Done: {call.answered ? `answered, ${talkTime(call.talk_seconds)} of talk` : "not answered"}
          {call.sip_code ? `, ${sipAnswer(call)}` : ""}.
        </p>
      ) : null}
      {call.call_id ? (
        <p>
          <Link href={`/calls/${call.call_id}`}>Open the screened call</Link>
        </p>
      ) : null}
    </section>
  );
}
