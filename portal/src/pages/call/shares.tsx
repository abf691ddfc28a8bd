// Share links: a password-protected public page of the call for someone outside the account. The
// password is shown once (at creation and after a rotation); the list shows each link's views and
// state, with rotate and revoke.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { Empty, ErrorBox, Field, fieldError, Loading, Secret, SelectField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { count, when } from "../../lib/format.ts";
import { copy, sharesKey, type CallDetail } from "./shared.ts";

type Share = Schemas["CallShare"];
type ShareWithPassword = Schemas["CallShareWithPassword"];

const EXPIRIES: [string, string][] = [
  ["24", "1 day"],
  ["72", "3 days"],
  ["168", "1 week"],
  ["720", "30 days"],
  ["8760", "1 year"],
  ["never", "Never"],
];

export function Shares({ call }: { call: CallDetail }) {
  const list = useQuery({
    queryKey: sharesKey(call.id),
    queryFn: () => must(api.GET("/calls/{call_id}/shares", { params: { path: { call_id: call.id } } })),
  });
  const [fresh, setFresh] = useState<{ share: ShareWithPassword; rotated: boolean } | null>(null);
  return (
    <section className="card" aria-labelledby="shares-heading">
      <h2 id="shares-heading">Share links</h2>
      <p className="muted">A link with a password opens this call's verdict, transcript and recording for someone outside your account.</p>
      <CreateShare call={call} onCreated={(share) => setFresh({ share, rotated: false })} />
      {fresh ? <NewPassword share={fresh.share} rotated={fresh.rotated} onDone={() => setFresh(null)} /> : null}
      <h3>Links of this call</h3>
      {list.isPending ? (
        <Loading what="Loading the share links" />
      ) : list.isError ? (
        <ErrorBox error={list.error} />
      ) : list.data.items.length === 0 ? (
        <Empty>No share links yet.</Empty>
      ) : (
        <ShareTable call={call} shares={list.data.items} onRotated={(share) => setFresh({ share, rotated: true })} />
      )}
    </section>
  );
}

function CreateShare({ call, onCreated }: { call: CallDetail; onCreated: (share: ShareWithPassword) => void }) {
  const queries = useQueryClient();
  const [label, setLabel] = useState("");
  const [expiry, setExpiry] = useState("168");
  const create = useMutation({
    mutationFn: () =>
      must(
        api.POST("/calls/{call_id}/share", {
          params: { path: { call_id: call.id } },
          body: { label: label.trim() || null, expires_in_hours: expiry === "never" ? null : Number(expiry) },
        }),
      ),
    onSuccess: (share) => {
      featureUsed("call.share.create");
      onCreated(share);
      setLabel("");
      void queries.invalidateQueries({ queryKey: sharesKey(call.id) });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const named = fieldError(create.error, "label") || fieldError(create.error, "expires_in_hours");
  return (
    <form className="inline-form" onSubmit={submit} aria-label="New share link">
      <Field
        label="Label"
        name="label"
        value={label}
        onChange={(e) => setLabel(e.target.value)}
        placeholder="For the Visa fraud desk"
        autoComplete="off"
        error={create.error}
      />
      <SelectField
        label="Expires after"
        name="expires_in_hours"
        value={expiry}
        onChange={(e) => setExpiry(e.target.value)}
        error={create.error}
      >
        {EXPIRIES.map(([value, name]) => (
          <option key={value} value={value}>
            {name}
          </option>
        ))}
      </SelectField>
      <button type="submit" className="primary" disabled={create.isPending}>
        {create.isPending ? "Creating…" : "Create share link"}
      </button>
      {named ? null : <ErrorBox error={create.error} />}
    </form>
  );
}

function NewPassword({ share, rotated, onDone }: { share: ShareWithPassword; rotated: boolean; onDone: () => void }) {
  return (
    <div className="share-new" role="status">
      <p>
        {rotated ? "The link has a new password; the old one no longer opens it." : "The link is ready."} Send the link and the password
        separately.
      </p>
      <div className="share-url">
        <span>Link</span>
        <code data-testid="share-url">{share.url}</code>
        <button type="button" onClick={() => copy(share.url)}>
          Copy link
        </button>
      </div>
      <Secret label="Password" value={share.password} />
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

function state(share: Share): string {
  if (share.revoked_at) return `Revoked ${when(share.revoked_at)}`;
  if (!share.active) return "Expired";
  return "Active";
}

function ShareTable({ call, shares, onRotated }: { call: CallDetail; shares: Share[]; onRotated: (share: ShareWithPassword) => void }) {
  const queries = useQueryClient();
  const refresh = () => void queries.invalidateQueries({ queryKey: sharesKey(call.id) });
  const rotate = useMutation({
    mutationFn: (id: string) => must(api.POST("/calls/shares/{share_id}/rotate", { params: { path: { share_id: id } } })),
    onSuccess: (share) => {
      featureUsed("call.share.rotate");
      onRotated(share);
      refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => must(api.DELETE("/calls/shares/{share_id}", { params: { path: { share_id: id } } })),
    onSuccess: () => {
      featureUsed("call.share.revoke");
      refresh();
    },
  });
  const busy = rotate.isPending || revoke.isPending;
  const base = useId();
  return (
    <>
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">Share links of this call</caption>
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col" className="num">
                Views
              </th>
              <th scope="col">Last viewed</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shares.map((share) => {
              const rowId = `${base}-${share.id}`;
              return (
                <tr key={share.id} data-share-id={share.id}>
                  <th scope="row" id={rowId}>
                    {share.label || <span className="muted">Link created {when(share.created_at)}</span>}
                  </th>
                  <td>
                    {when(share.created_at)}
                    {share.created_by ? <div className="muted">{share.created_by}</div> : null}
                  </td>
                  <td>{share.expires_at ? when(share.expires_at) : "Never"}</td>
                  <td className="num">{count(share.view_count)}</td>
                  <td>{when(share.last_viewed_at)}</td>
                  <td>
                    <span className={share.active ? "badge share-active" : "badge"}>{state(share)}</span>
                  </td>
                  <td>
                    {share.active ? (
                      <div className="actions">
                        <button type="button" onClick={() => rotate.mutate(share.id)} disabled={busy} aria-describedby={rowId}>
                          Rotate password
                        </button>
                        <button
                          type="button"
                          className="danger"
                          onClick={() => revoke.mutate(share.id)}
                          disabled={busy}
                          aria-describedby={rowId}
                        >
                          Revoke
                        </button>
                      </div>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <ErrorBox error={rotate.error ?? revoke.error} />
    </>
  );
}
