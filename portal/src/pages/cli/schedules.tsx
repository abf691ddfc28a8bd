// Schedules: a CLI check or a route test (a test call) repeated hourly or daily on a destination,
// the first run at once; the account is alerted when a run ends differently from the one before.
// Each can be paused, resumed or removed, and shows its last and previous outcomes.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { api, must } from "../../api/client.ts";
import { useDestinations } from "../../api/destinations.ts";
import { ConfirmButton, Empty, ErrorBox, Field, Loading, SelectField, Status } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { when, words } from "../../lib/format.ts";
import { useUrlState } from "../../lib/url-state.ts";
import { refreshMoney } from "../billing/keys.ts";
import { useVerifiedNumbers } from "./check-form.tsx";
import {
  CHECKS,
  countryName,
  destinationLabel,
  namesOnly,
  plainError,
  routeName,
  routes,
  SCHEDULES,
  type Coverage,
  type Schedule,
} from "./shared.tsx";

const FORM_FIELDS = ["kind", "destination_id", "every", "country", "number", "caller_id"];
/** How long after a run the list keeps reading, waiting for its outcome. */
const RUN_WATCH_MS = 5 * 60_000;

const inFlight = (s: Schedule) => !!s.last_run_at && !s.last_outcome && Date.now() - Date.parse(s.last_run_at) < RUN_WATCH_MS;

/** "match", "modified prefix", "failed (486)", "answered". */
export function outcomeName(outcome: string | null): string {
  if (!outcome) return "—";
  const failed = /^failed_(.+)$/.exec(outcome);
  if (failed) return `failed (${words(failed[1])})`;
  return words(outcome);
}

const whatOf = (s: Schedule) =>
  s.kind === "cli_check" ? `Caller-ID check to ${countryName(s.country ?? "")}` : `Route test to ${s.number ?? "—"}`;

export function Schedules({ coverage, onOpen }: { coverage: Coverage | undefined; onOpen: (checkId: string) => void }) {
  const list = useQuery({
    queryKey: SCHEDULES,
    queryFn: () => must(api.GET("/customer/cli/schedules", { params: { query: { limit: 200 } } })),
    refetchInterval: (query) => (query.state.data?.items.some(inFlight) ? 2_000 : false),
  });
  return (
    <section className="card" aria-labelledby="cli-schedules">
      <h2 id="cli-schedules">Schedules</h2>
      <p className="muted">
        Repeat a check or a route test on a destination every hour or every day. The first run starts at once; each run is charged like one
        you ask for. When a run ends differently from the one before, your alert channels and webhook are told.
      </p>
      <NewSchedule coverage={coverage} />
      {list.isPending ? <Loading what="Reading the schedules" /> : null}
      <ErrorBox error={list.error} />
      {list.data && !list.data.items.length ? <Empty>No schedule yet.</Empty> : null}
      {list.data?.items.length ? <ScheduleTable schedules={list.data.items} onOpen={onOpen} /> : null}
    </section>
  );
}

function NewSchedule({ coverage }: { coverage: Coverage | undefined }) {
  const queries = useQueryClient();
  const destinations = useDestinations();
  const numbers = useVerifiedNumbers();
  const verified = (numbers.data ?? []).filter((n) => n.verified);
  const [kind, setKind] = useState<"cli_check" | "test_call">("cli_check");
  const [destination, setDestination] = useState<string | null>(null);
  const [every, setEvery] = useState<"hourly" | "daily">("daily");
  const [country, setCountry] = useState<string | null>(null);
  const [number, setNumber] = useState("");
  const [callerId, setCallerId] = useState("");
  const choices = kind === "cli_check" ? routes(destinations.data) : (destinations.data ?? []);
  const chosenDestination =
    (destination && choices.some((d) => d.id === destination) ? destination : null) ??
    (choices.find((d) => d.is_default) ?? choices[0])?.id ??
    "";
  const countries = coverage?.countries ?? [];
  const chosenCountry = country ?? countries[0]?.country ?? "";

  const create = useMutation({
    mutationFn: () =>
      must(
        api.POST("/customer/cli/schedules", {
          body: {
            kind,
            destination_id: chosenDestination,
            every,
            ...(kind === "cli_check" ? { country: chosenCountry } : { number: number.trim() }),
            ...(callerId ? { caller_id: callerId } : {}),
          },
        }),
      ),
    onSuccess: () => {
      featureUsed(`cli_schedule.create.${kind}`);
      setNumber("");
      void queries.invalidateQueries({ queryKey: SCHEDULES });
      void queries.invalidateQueries({ queryKey: CHECKS });
      void queries.invalidateQueries({ queryKey: ["test-calls"] });
      void refreshMoney(queries);
    },
  });
  const error = plainError(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const ready = !!chosenDestination && (kind === "cli_check" ? !!chosenCountry : !!number.trim());

  return (
    <form onSubmit={submit} aria-label="New schedule" noValidate>
      <div className="grid">
        <SelectField
          label="What to run"
          name="kind"
          value={kind}
          onChange={(event) => setKind(event.target.value as typeof kind)}
          error={error}
          hint={kind === "cli_check" ? "A check of the caller ID the route delivers." : "A test call through the route to a number."}
        >
          <option value="cli_check">Caller-ID check</option>
          <option value="test_call">Route test (a test call)</option>
        </SelectField>
        <SelectField
          label="Destination"
          name="destination_id"
          value={chosenDestination}
          onChange={(event) => setDestination(event.target.value)}
          error={error}
        >
          {destinations.isPending ? <option value="">Reading the destinations…</option> : null}
          {destinations.data && !choices.length ? <option value="">No destination that fits</option> : null}
          {choices.map((d) => (
            <option key={d.id} value={d.id}>
              {routeName(d)}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="How often"
          name="every"
          value={every}
          onChange={(event) => setEvery(event.target.value as typeof every)}
          error={error}
        >
          <option value="daily">Every day</option>
          <option value="hourly">Every hour</option>
        </SelectField>
        {kind === "cli_check" ? (
          <SelectField
            label="Country to call"
            name="country"
            value={chosenCountry}
            onChange={(event) => setCountry(event.target.value)}
            error={error}
          >
            {!coverage ? <option value="">Reading the coverage…</option> : null}
            {coverage && !countries.length ? <option value="">No country covered</option> : null}
            {countries.map((c) => (
              <option key={c.country} value={c.country}>
                {countryName(c.country)}
              </option>
            ))}
          </SelectField>
        ) : (
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
            hint="It rings at every run: use a number you answer or a test line."
          />
        )}
        <SelectField
          label="Caller ID"
          name="caller_id"
          value={callerId}
          onChange={(event) => setCallerId(event.target.value)}
          error={error}
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
        <button type="submit" className="primary" disabled={create.isPending || !ready}>
          {create.isPending ? "Creating…" : "Create the schedule"}
        </button>
      </div>
      {create.isError && !namesOnly(error, FORM_FIELDS) ? <ErrorBox error={error} /> : null}
    </form>
  );
}

function ScheduleTable({ schedules, onOpen }: { schedules: Schedule[]; onOpen: (checkId: string) => void }) {
  const queries = useQueryClient();
  const url = useUrlState();
  const base = useId();
  const destinations = useDestinations();
  const update = useMutation({
    mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) =>
      must(api.PATCH("/customer/cli/schedules/{schedule_id}", { params: { path: { schedule_id: id } }, body: { enabled } })),
    onSuccess: (schedule) => {
      featureUsed(schedule.enabled ? "cli_schedule.resume" : "cli_schedule.pause");
      void queries.invalidateQueries({ queryKey: SCHEDULES });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE("/customer/cli/schedules/{schedule_id}", { params: { path: { schedule_id: id } } })),
    onSuccess: () => {
      featureUsed("cli_schedule.delete");
      void queries.invalidateQueries({ queryKey: SCHEDULES });
    },
  });
  const busy = update.isPending || remove.isPending;
  return (
    <>
      <div className="table-wrap">
        <table aria-label="Schedules, newest first">
          <thead>
            <tr>
              <th scope="col">What</th>
              <th scope="col">Route</th>
              <th scope="col">How often</th>
              <th scope="col">State</th>
              <th scope="col">Last run</th>
              <th scope="col">Previous outcome</th>
              <th scope="col">Next run</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {schedules.map((s) => {
              const rowId = `${base}-${s.id}`;
              const changed = !!s.previous_outcome && !!s.last_outcome && s.previous_outcome !== s.last_outcome;
              return (
                <tr key={s.id} data-testid="cli-schedule-row" data-schedule-id={s.id} data-enabled={String(s.enabled)}>
                  <th scope="row" id={rowId}>
                    {whatOf(s)}
                    {s.caller_id ? <span className="muted"> from {s.caller_id}</span> : null}
                  </th>
                  <td>{destinationLabel(destinations.data, s.destination_id)}</td>
                  <td>{s.every === "hourly" ? "Every hour" : "Every day"}</td>
                  <td>
                    <Status value={s.enabled ? "active" : "paused"} />
                  </td>
                  <td>
                    <span data-testid="last-outcome">{s.last_run_at && !s.last_outcome ? "running" : outcomeName(s.last_outcome)}</span>
                    {changed ? <strong className="cli-outcome-changed"> (changed)</strong> : null}
                    {s.last_run_at ? <span className="cli-run-when">{when(s.last_run_at)}</span> : null}
                  </td>
                  <td>{outcomeName(s.previous_outcome)}</td>
                  <td>{s.enabled ? when(s.next_run_at) : "paused"}</td>
                  <td>
                    <div className="actions cli-schedule-actions">
                      {s.kind === "cli_check" && s.last_run_id ? (
                        <button type="button" onClick={() => onOpen(s.last_run_id!)} aria-describedby={rowId}>
                          Last run
                        </button>
                      ) : null}
                      {s.kind === "cli_check" ? (
                        <button type="button" onClick={() => url.set({ schedule: s.id, destination: null })} aria-describedby={rowId}>
                          Its runs
                        </button>
                      ) : null}
                      <button
                        type="button"
                        onClick={() => update.mutate({ id: s.id, enabled: !s.enabled })}
                        disabled={busy}
                        aria-describedby={rowId}
                      >
                        {s.enabled ? "Pause" : "Resume"}
                      </button>
                      <ConfirmButton
                        question="Remove this schedule? Its past runs stay."
                        confirm="Remove it"
                        label={`Remove the schedule: ${whatOf(s)}`}
                        onConfirm={() => remove.mutate(s.id)}
                        busy={busy}
                        describedBy={rowId}
                      >
                        Remove
                      </ConfirmButton>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <ErrorBox error={plainError(update.error ?? remove.error)} />
    </>
  );
}
