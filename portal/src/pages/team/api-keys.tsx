// API keys: a script's credential, sent in the X-API-Key header. The owner creates one with a name
// (the whole key is shown once, with Copy) and revokes it; everyone sees when each was last used.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { Empty, ErrorBox, Field, fieldError, Loading, Secret } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { when } from "../../lib/format.ts";
import { usePermissions } from "../../session/hooks.ts";
import { GuardedButton, orNever } from "./shared.tsx";

type ApiKey = Schemas["ApiKey"];
const KEYS = ["api-keys"];

export function ApiKeys() {
  const { owner, impersonating } = usePermissions();
  const list = useQuery({ queryKey: KEYS, queryFn: () => must(api.GET("/auth/api-keys")) });
  const [fresh, setFresh] = useState<Schemas["CreatedApiKey"] | null>(null);
  return (
    <section className="card" aria-labelledby="team-keys">
      <h2 id="team-keys">API keys</h2>
      <p className="muted">
        A script sends its key in the <code>X-API-Key</code> header. A key acts as the person who created it and stops working when it is
        revoked or that person is deactivated.
      </p>
      {owner ? (
        <CreateKey refused={impersonating} onCreated={setFresh} />
      ) : (
        <p className="muted">The account&apos;s owner creates and revokes keys.</p>
      )}
      {fresh ? (
        <div className="team-fresh" role="status">
          <p>
            The key <strong>{fresh.name}</strong> is ready. Copy it now: it is never shown again.
          </p>
          <Secret label="API key" value={fresh.key} />
          <button type="button" onClick={() => setFresh(null)}>
            Done
          </button>
        </div>
      ) : null}
      {list.isPending ? (
        <Loading what="Loading the API keys" />
      ) : list.isError ? (
        <ErrorBox error={list.error} />
      ) : list.data.length === 0 ? (
        <Empty>No API key yet.</Empty>
      ) : (
        <KeyTable
          keys={list.data}
          owner={owner}
          refused={impersonating}
          onRevoked={(id) => {
            if (fresh?.id === id) setFresh(null);
          }}
        />
      )}
    </section>
  );
}

function CreateKey({ refused, onCreated }: { refused: boolean; onCreated: (key: Schemas["CreatedApiKey"]) => void }) {
  const queries = useQueryClient();
  const [name, setName] = useState("");
  const create = useMutation({
    mutationFn: () => must(api.POST("/auth/api-keys", { body: { name: name.trim() } })),
    onSuccess: (key) => {
      featureUsed("api_keys.create");
      onCreated(key);
      setName("");
      void queries.invalidateQueries({ queryKey: KEYS });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form className="team-inline-form" onSubmit={submit} aria-label="Create an API key">
      <Field
        label="Name of the new key"
        name="name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        autoComplete="off"
        placeholder="billing-sync"
        required
        error={create.error}
      />
      <div className="team-form-buttons">
        <GuardedButton type="submit" className="primary" refused={refused} disabled={create.isPending || !name.trim()}>
          {create.isPending ? "Creating…" : "Create key"}
        </GuardedButton>
      </div>
      {fieldError(create.error, "name") ? null : <ErrorBox error={create.error} />}
    </form>
  );
}

function KeyTable({
  keys,
  owner,
  refused,
  onRevoked,
}: {
  keys: ApiKey[];
  owner: boolean;
  refused: boolean;
  onRevoked: (id: string) => void;
}) {
  const queries = useQueryClient();
  const base = useId();
  const revoke = useMutation({
    mutationFn: (id: string) => must(api.DELETE("/auth/api-keys/{key_id}", { params: { path: { key_id: id } } })),
    onSuccess: (_, id) => {
      featureUsed("api_keys.revoke");
      onRevoked(id);
      void queries.invalidateQueries({ queryKey: KEYS });
    },
  });
  return (
    <>
      <div className="table-wrap">
        <table className="team-table">
          <caption className="visually-hidden">API keys of the account</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Starts with</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
              {owner ? (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => {
              const rowId = `${base}-${key.id}`;
              return (
                <tr key={key.id} data-key-id={key.id}>
                  <th scope="row" id={rowId}>
                    {key.name}
                  </th>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td className="team-when">{when(key.created_at)}</td>
                  <td className="team-when">{orNever(key.last_used_at, when)}</td>
                  <td>
                    {key.revoked_at ? (
                      <span className="badge team-off">Revoked {when(key.revoked_at)}</span>
                    ) : (
                      <span className="badge team-ok">Active</span>
                    )}
                  </td>
                  {owner ? (
                    <td>
                      {key.revoked_at ? null : (
                        <div className="actions">
                          <GuardedButton
                            refused={refused}
                            className="danger"
                            onClick={() => revoke.mutate(key.id)}
                            disabled={revoke.isPending}
                            aria-describedby={rowId}
                          >
                            Revoke
                          </GuardedButton>
                        </div>
                      )}
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <ErrorBox error={revoke.error} />
    </>
  );
}
