// The controlled numbers (GET /automation/controls): each with its action, the reason the rule
// wrote, when it expires or was released, the call whose verdict caused it and the calls from that
// number, and Release (POST /automation/controls/{id}/release; 409 when it was released already).
// "Include released" and the page live in the URL (?released=1&offset=…).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { Link } from "wouter";
import { api, must } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { Empty, ErrorBox, Loading, Pager } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { when } from "../../lib/format.ts";
import { useUrlState } from "../../lib/url-state.ts";
import { CheckField, destinationLabel, keys, useAutomationRules, useDestinations, type AniControl } from "./shared.tsx";

const PAGE_SIZE = 25;

/** The number as the calls list searches it. */
const callsFrom = (ani: string) => `/calls?q=${encodeURIComponent(ani)}`;

function state(control: AniControl): { label: string; active: boolean } {
  if (control.released_at) return { label: `Released ${when(control.released_at)}`, active: false };
  if (control.expires_at && new Date(control.expires_at).getTime() <= Date.now()) return { label: "Expired", active: false };
  return { label: "Active", active: true };
}

export function ControlledNumbers() {
  const url = useUrlState();
  const released = url.get("released") === "1";
  const offset = Math.max(0, Number(url.get("offset")) || 0);
  const query = { include_released: released ? ("true" as const) : ("false" as const), limit: PAGE_SIZE, offset };
  const controls = useQuery({
    queryKey: [...keys.controls, query],
    queryFn: () => must(api.GET("/automation/controls", { params: { query } })),
    placeholderData: keepPreviousData,
  });
  return (
    <section className="card" aria-labelledby="controlled-numbers">
      <h2 id="controlled-numbers">Controlled numbers</h2>
      <p className="muted">
        Calling numbers a rule put under control. Their calls are refused (block) or sent to a destination (divert) until the control
        expires or you release it.
      </p>
      <CheckField
        label="Include released and expired"
        name="include_released"
        checked={released}
        onChange={(e) => url.set({ released: e.target.checked ? "1" : null })}
      />
      {controls.isPending ? <Loading what="Loading the controlled numbers" /> : null}
      <ErrorBox error={controls.error} />
      {controls.data && controls.data.items.length === 0 ? (
        <Empty>{released ? "No number has been controlled yet." : "No number is under control now."}</Empty>
      ) : null}
      {controls.data?.items.length ? <ControlTable controls={controls.data.items} busy={controls.isFetching} /> : null}
      {controls.data ? (
        <Pager total={controls.data.total} limit={PAGE_SIZE} offset={offset} onOffset={(o) => url.set({ offset: o || null })} />
      ) : null}
    </section>
  );
}

function ControlTable({ controls, busy }: { controls: AniControl[]; busy: boolean }) {
  const queries = useQueryClient();
  const rules = useAutomationRules();
  const destinations = useDestinations();
  const base = useId();
  const release = useMutation({
    mutationFn: (id: string) => must(api.POST("/automation/controls/{control_id}/release", { params: { path: { control_id: id } } })),
    onSuccess: () => featureUsed("automation.control.release"),
    // Released or not (409: someone was quicker), the list shows what is true now.
    onSettled: () => void queries.invalidateQueries({ queryKey: keys.controls }),
  });
  const already = release.error instanceof ApiError && release.error.status === 409;
  return (
    <>
      <div className="table-wrap" aria-busy={busy}>
        <table className="controls-table">
          <caption className="visually-hidden">Controlled numbers</caption>
          <thead>
            <tr>
              <th scope="col">Number</th>
              <th scope="col">Action</th>
              <th scope="col">Reason</th>
              <th scope="col">Caused by</th>
              <th scope="col">Since</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {controls.map((control) => {
              const rowId = `${base}-${control.id}`;
              const now = state(control);
              const rule = control.rule_id ? rules.data?.find((r) => r.id === control.rule_id) : undefined;
              return (
                <tr key={control.id} data-control-id={control.id} data-ani={control.ani}>
                  <th scope="row">
                    <span className="ani" id={rowId}>
                      {control.ani}
                    </span>
                    <div>
                      <Link href={callsFrom(control.ani)}>
                        Calls from this number<span className="visually-hidden"> {control.ani}</span>
                      </Link>
                    </div>
                  </th>
                  <td>
                    {control.action === "divert"
                      ? `Divert to ${destinationLabel(control.divert_destination_id, destinations.data)}`
                      : "Block"}
                  </td>
                  <td className="reason">{control.reason ?? <span className="muted">—</span>}</td>
                  <td>
                    {control.call_id ? (
                      <Link href={`/calls/${control.call_id}`}>
                        The call<span className="visually-hidden"> that put {control.ani} under control</span>
                      </Link>
                    ) : (
                      <Link href={callsFrom(control.ani)}>
                        Find the call<span className="visually-hidden"> from {control.ani}</span>
                      </Link>
                    )}
                    {control.rule_id ? (
                      <div className="muted">{rule ? `Rule “${rule.name}”` : rules.data ? "A deleted rule" : null}</div>
                    ) : null}
                  </td>
                  <td className="when">{when(control.created_at)}</td>
                  <td className="when">{control.expires_at ? when(control.expires_at) : "Until released"}</td>
                  <td>
                    <span className={now.active ? "badge control-active" : "badge"}>{now.label}</span>
                  </td>
                  <td>
                    {now.active ? (
                      <button
                        type="button"
                        onClick={() => release.mutate(control.id)}
                        disabled={release.isPending}
                        aria-describedby={rowId}
                      >
                        Release
                      </button>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {already ? (
        <p className="error" role="alert">
          This number had been released already; the list now shows it as it is.
        </p>
      ) : (
        <ErrorBox error={release.error} />
      )}
    </>
  );
}
