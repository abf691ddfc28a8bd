// The whitelist (GET/POST/PATCH/DELETE /customer/ips): the source addresses whose calls the
// service admits. A range is added with its label, dial prefix (one sub-customer behind a shared
// address), destination and enabled flag; those change in place, the range itself never does
// (delete and add). Each entry says whether it admits calls now, and a range that waits for proof
// of control opens the proof panel (proof.tsx).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Fragment, useId, useState, type FormEvent, type ReactNode } from "react";
import { api, must } from "../../api/client.ts";
import { Empty, ErrorBox, Field, Loading, SelectField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { when } from "../../lib/format.ts";
import { awaitsProof, ProofPanel } from "./proof.tsx";
import {
  CheckField,
  DeleteButton,
  DestinationOptions,
  DestinationRef,
  keys,
  orNull,
  TrunkError,
  useDestinations,
  useIps,
  type Destination,
  type IpEntry,
} from "./shared.tsx";

const ENTRY_FIELDS = ["cidr", "label", "dial_prefix", "destination_id", "enabled"];

export function WhitelistSection() {
  const ips = useIps();
  const destinations = useDestinations();
  return (
    <section className="card" aria-labelledby="trunk-whitelist">
      <h2 id="trunk-whitelist">Whitelist</h2>
      <p className="muted">
        An address (<code>203.0.113.7</code>) or a range up to a /24 (IPv6 /48) admits calls as soon as it is added. A wider range (up to a
        /16, IPv6 /32), or one overlapping another account&apos;s unproven claim, waits until you prove that you receive traffic there, or
        until a platform administrator approves it.
      </p>
      <AddRange destinations={destinations.data} />
      <h3>Entries</h3>
      {ips.isPending ? <Loading what="Loading the whitelist" /> : null}
      <ErrorBox error={ips.error} />
      {ips.data && ips.data.length === 0 ? (
        <Empty>No address yet: calls are refused until you add the addresses you send from.</Empty>
      ) : null}
      {ips.data?.length ? <EntryTable entries={ips.data} destinations={destinations.data} /> : null}
    </section>
  );
}

type Draft = { cidr: string; label: string; dial_prefix: string; destination_id: string; enabled: boolean };
const EMPTY: Draft = { cidr: "", label: "", dial_prefix: "", destination_id: "", enabled: true };

function AddRange({ destinations }: { destinations: Destination[] | undefined }) {
  const queries = useQueryClient();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [added, setAdded] = useState<IpEntry | null>(null);
  const add = useMutation({
    mutationFn: () =>
      must(
        api.POST("/customer/ips", {
          body: {
            cidr: draft.cidr.trim(),
            label: orNull(draft.label),
            dial_prefix: orNull(draft.dial_prefix),
            destination_id: draft.destination_id || null,
            enabled: draft.enabled,
          },
        }),
      ),
    onSuccess: (entry) => {
      featureUsed("trunk.whitelist.add");
      setAdded(entry);
      setDraft(EMPTY);
      void queries.invalidateQueries({ queryKey: keys.ips });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setAdded(null);
    add.mutate();
  };
  return (
    <form className="trunk-form" onSubmit={submit} aria-label="Whitelist an address or range">
      <EntrySettings
        draft={draft}
        set={(changes) => setDraft({ ...draft, ...changes })}
        destinations={destinations}
        error={add.error}
        adding
      >
        <Field
          label="Address or range (CIDR)"
          name="cidr"
          value={draft.cidr}
          onChange={(e) => setDraft({ ...draft, cidr: e.target.value })}
          placeholder="203.0.113.0/24"
          required
          autoComplete="off"
          spellCheck={false}
          error={add.error}
        />
      </EntrySettings>
      <div className="actions">
        <button type="submit" className="primary" disabled={add.isPending}>
          {add.isPending ? "Adding…" : "Add to the whitelist"}
        </button>
      </div>
      <TrunkError error={add.error} fields={ENTRY_FIELDS} />
      {added ? (
        <p role="status" className="trunk-note">
          {added.cidr} added.{" "}
          {added.admits_calls ? "Calls from it are admitted now." : "It admits no calls yet: open Prove control on its row below."}
        </p>
      ) : null}
    </form>
  );
}

type Settings = Omit<Draft, "cidr">;

/**
 * What an entry says besides its range, as added and as changed: label, dial prefix, destination
 * (in the grid after `children`, the range of a new entry) and enabled.
 */
function EntrySettings({
  draft,
  set,
  destinations,
  error,
  adding = false,
  children,
}: {
  draft: Settings;
  set: (changes: Partial<Settings>) => void;
  destinations: Destination[] | undefined;
  error: unknown;
  /** A new entry's form shows examples and what the dial prefix is for. */
  adding?: boolean;
  children?: ReactNode;
}) {
  return (
    <>
      <div className="trunk-fields">
        {children}
        <Field
          label="Label"
          name="label"
          value={draft.label}
          onChange={(e) => set({ label: e.target.value })}
          placeholder={adding ? "Core SBC Frankfurt" : undefined}
          autoComplete="off"
          error={error}
        />
        <Field
          label="Dial prefix"
          name="dial_prefix"
          value={draft.dial_prefix}
          onChange={(e) => set({ dial_prefix: e.target.value })}
          inputMode="numeric"
          autoComplete="off"
          hint={adding ? "Optional: the digits a sub-customer behind a shared address dials first (stripped before routing)." : undefined}
          error={error}
        />
        <SelectField
          label="Destination"
          name="destination_id"
          value={draft.destination_id}
          onChange={(e) => set({ destination_id: e.target.value })}
          error={error}
        >
          <option value="">By routing rules, else the default</option>
          <DestinationOptions destinations={destinations} />
        </SelectField>
      </div>
      <CheckField
        label="Enabled"
        name="enabled"
        checked={draft.enabled}
        onChange={(e) => set({ enabled: e.target.checked })}
        error={error}
      />
    </>
  );
}

/** What an entry means for calls right now. */
export function entryState(entry: IpEntry): { text: string; className: string } {
  if (entry.admits_calls) return { text: "Admits calls", className: "badge trunk-ok" };
  if (!entry.enabled) return { text: "Disabled", className: "badge" };
  if (entry.pending_reason?.startsWith("displaced")) return { text: "Displaced", className: "badge trunk-bad" };
  return { text: "Waiting for proof or approval", className: "badge trunk-wait" };
}

function proofText(entry: IpEntry): string {
  if (entry.verification === "verified") return `Verified ${when(entry.verified_at)}`;
  if (entry.verification === "approved") return `Approved ${when(entry.verified_at)}`;
  return "Not proven";
}

type Open = { id: string; panel: "edit" | "prove" } | null;

function EntryTable({ entries, destinations }: { entries: IpEntry[]; destinations: Destination[] | undefined }) {
  const queries = useQueryClient();
  const base = useId();
  const [open, setOpen] = useState<Open>(null);
  const refresh = () => void queries.invalidateQueries({ queryKey: keys.ips });
  const toggle = useMutation({
    mutationFn: (entry: IpEntry) =>
      must(api.PATCH("/customer/ips/{ip_id}", { params: { path: { ip_id: entry.id } }, body: { enabled: !entry.enabled } })),
    onSuccess: (entry) => {
      featureUsed(entry.enabled ? "trunk.whitelist.enable" : "trunk.whitelist.disable");
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (entry: IpEntry) => must(api.DELETE("/customer/ips/{ip_id}", { params: { path: { ip_id: entry.id } } })),
    onSuccess: () => {
      featureUsed("trunk.whitelist.delete");
      setOpen(null);
      refresh();
    },
  });
  const busy = toggle.isPending || remove.isPending;
  const show = (id: string, panel: "edit" | "prove") => setOpen(open?.id === id && open.panel === panel ? null : { id, panel });
  return (
    <>
      <div className="table-wrap">
        <table className="trunk-table">
          <caption className="visually-hidden">Whitelisted addresses, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Range</th>
              <th scope="col">Label</th>
              <th scope="col">Dial prefix</th>
              <th scope="col">Destination</th>
              <th scope="col">Calls</th>
              <th scope="col">Proof of control</th>
              <th scope="col">Added</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => {
              const rowId = `${base}-${entry.id}`;
              const state = entryState(entry);
              const opened = open?.id === entry.id ? open.panel : null;
              return (
                <Fragment key={entry.id}>
                  <tr data-ip-id={entry.id}>
                    <th scope="row" id={rowId}>
                      <code>{entry.cidr}</code>
                    </th>
                    <td>{entry.label ?? <span className="muted">—</span>}</td>
                    <td>{entry.dial_prefix ?? <span className="muted">—</span>}</td>
                    <td>
                      {entry.destination_id ? (
                        <DestinationRef id={entry.destination_id} destinations={destinations} />
                      ) : (
                        <span className="muted">Routing rules</span>
                      )}
                    </td>
                    <td>
                      <span className={state.className}>{state.text}</span>
                      {entry.pending_reason && entry.pending_reason !== "disabled" ? (
                        <div className="muted trunk-reason">{entry.pending_reason}</div>
                      ) : null}
                    </td>
                    <td>{proofText(entry)}</td>
                    <td className="when">{when(entry.created_at)}</td>
                    <td>
                      <div className="actions">
                        {awaitsProof(entry) ? (
                          <button
                            type="button"
                            className={opened === "prove" ? undefined : "primary"}
                            aria-expanded={opened === "prove"}
                            aria-describedby={rowId}
                            onClick={() => show(entry.id, "prove")}
                          >
                            Prove control
                          </button>
                        ) : null}
                        <button
                          type="button"
                          aria-expanded={opened === "edit"}
                          aria-describedby={rowId}
                          onClick={() => show(entry.id, "edit")}
                        >
                          Edit
                        </button>
                        <button type="button" disabled={busy} aria-describedby={rowId} onClick={() => toggle.mutate(entry)}>
                          {entry.enabled ? "Disable" : "Enable"}
                        </button>
                        <DeleteButton what={entry.cidr} busy={busy} describedBy={rowId} onDelete={() => remove.mutate(entry)} />
                      </div>
                    </td>
                  </tr>
                  {opened ? (
                    <tr className="trunk-panel-row">
                      <td colSpan={8}>
                        {opened === "edit" ? (
                          <EditEntry entry={entry} destinations={destinations} onDone={() => setOpen(null)} />
                        ) : (
                          <ProofPanel entry={entry} onDone={() => setOpen(null)} />
                        )}
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </div>
      <TrunkError error={toggle.error ?? remove.error} />
    </>
  );
}

function EditEntry({ entry, destinations, onDone }: { entry: IpEntry; destinations: Destination[] | undefined; onDone: () => void }) {
  const queries = useQueryClient();
  const [draft, setDraft] = useState<Settings>({
    label: entry.label ?? "",
    dial_prefix: entry.dial_prefix ?? "",
    destination_id: entry.destination_id ?? "",
    enabled: entry.enabled,
  });
  const save = useMutation({
    mutationFn: () =>
      must(
        api.PATCH("/customer/ips/{ip_id}", {
          params: { path: { ip_id: entry.id } },
          body: {
            label: orNull(draft.label),
            dial_prefix: orNull(draft.dial_prefix),
            destination_id: draft.destination_id || null,
            enabled: draft.enabled,
          },
        }),
      ),
    onSuccess: () => {
      featureUsed("trunk.whitelist.edit");
      void queries.invalidateQueries({ queryKey: keys.ips });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="trunk-form" onSubmit={submit} aria-label={`Edit ${entry.cidr}`}>
      <p className="muted">
        The range <code>{entry.cidr}</code> itself cannot change: delete the entry and add the new range (the check against other
        accounts&apos; ranges runs again). Changes here apply without refusing calls meanwhile.
      </p>
      <EntrySettings draft={draft} set={(changes) => setDraft({ ...draft, ...changes })} destinations={destinations} error={save.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save"}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      <TrunkError error={save.error} fields={ENTRY_FIELDS} />
    </form>
  );
}
