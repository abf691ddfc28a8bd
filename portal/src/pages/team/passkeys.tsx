// The owner's passkeys, the account's second factor: with one, signing in asks for a passkey after
// the password, for everyone on the account (members enrol theirs at their next sign-in). Register
// one in this browser, rename, delete (the last one turns two-factor sign-in off, said before).
// Passkeys are the owner's own: a member is told whom to ask, and an administrator acting as the
// account can neither see nor change them.
import { startRegistration } from "@simplewebauthn/browser";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { Empty, ErrorBox, Field, fieldError, Loading } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { when } from "../../lib/format.ts";
import { useMe, usePermissions } from "../../session/hooks.ts";
import { Confirm, GuardedButton, orNever } from "./shared.tsx";

type Passkey = Schemas["Passkey"];
const PASSKEYS = ["passkeys"];

export function Passkeys() {
  const { owner, impersonating } = usePermissions();
  const me = useMe();
  const twofa = Boolean(me.data?.twofa_enabled);
  return (
    <section className="card" aria-labelledby="team-passkeys">
      <h2 id="team-passkeys">Passkeys</h2>
      <p>
        Two-factor sign-in: <strong data-testid="twofa">{twofa ? "on (password and passkey)" : "off"}</strong>
      </p>
      <p className="muted">
        With a passkey of the owner&apos;s, signing in asks for a passkey after the password, for everyone on the account: a member enrols
        their own at their next sign-in.
      </p>
      {!owner ? (
        <p>
          The account&apos;s owner manages passkeys. If you lose yours, ask them to reset it: you then enrol a new one at your next sign-in.
        </p>
      ) : impersonating ? (
        <>
          <p>The owner&apos;s passkeys are not shown while an administrator acts as the account.</p>
          <GuardedButton refused>Add a passkey</GuardedButton>
        </>
      ) : (
        <OwnPasskeys />
      )}
    </section>
  );
}

function OwnPasskeys() {
  const list = useQuery({ queryKey: PASSKEYS, queryFn: () => must(api.GET("/auth/passkeys")) });
  return (
    <>
      {list.isPending ? (
        <Loading what="Loading the passkeys" />
      ) : list.isError ? (
        <ErrorBox error={list.error} />
      ) : list.data.length === 0 ? (
        <Empty>No passkey yet.</Empty>
      ) : (
        <PasskeyTable passkeys={list.data} />
      )}
      <RegisterPasskey />
    </>
  );
}

function useRefresh() {
  const queries = useQueryClient();
  return () => {
    void queries.invalidateQueries({ queryKey: PASSKEYS });
    // Two-factor sign-in follows the passkeys (GET /auth/me's twofa_enabled).
    void queries.invalidateQueries({ queryKey: ["me"] });
  };
}

function RegisterPasskey() {
  const refresh = useRefresh();
  const [name, setName] = useState("");
  const register = useMutation({
    mutationFn: async () => {
      const begin = await must(api.POST("/auth/passkeys/register/begin", {}));
      const credential = await startRegistration({ optionsJSON: begin.options as never });
      return must(
        api.POST("/auth/passkeys/register/complete", {
          body: { credential: credential as never, state: begin.state, name: name.trim() || null },
        }),
      );
    },
    onSuccess: () => {
      featureUsed("passkeys.register");
      setName("");
      refresh();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    register.mutate();
  };
  return (
    <form className="team-inline-form" onSubmit={submit} aria-label="Add a passkey">
      <Field
        label="Name of the new passkey"
        name="name"
        value={name}
        placeholder="Work laptop"
        autoComplete="off"
        onChange={(e) => setName(e.target.value)}
        error={register.error}
      />
      <div className="team-form-buttons">
        <button type="submit" className="primary" disabled={register.isPending}>
          {register.isPending ? "Waiting for the passkey…" : "Add a passkey"}
        </button>
      </div>
      {fieldError(register.error, "name") ? null : <ErrorBox error={register.error} />}
    </form>
  );
}

function PasskeyTable({ passkeys }: { passkeys: Passkey[] }) {
  const refresh = useRefresh();
  const base = useId();
  const [renaming, setRenaming] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE("/auth/passkeys/{passkey_id}", { params: { path: { passkey_id: id } } })),
    onSuccess: () => {
      featureUsed("passkeys.delete");
      setDeleting(null);
      refresh();
    },
  });
  const last = passkeys.length === 1;
  return (
    <>
      <div className="table-wrap">
        <table className="team-table">
          <caption className="visually-hidden">Your passkeys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Added</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {passkeys.map((key) => {
              const rowId = `${base}-${key.id}`;
              return (
                <tr key={key.id} data-passkey-id={key.id}>
                  <th scope="row" id={rowId}>
                    {key.name}
                    {key.transports?.length ? <div className="muted">{key.transports.join(", ")}</div> : null}
                  </th>
                  <td className="team-when">{when(key.created_at)}</td>
                  <td className="team-when">{orNever(key.last_used_at, when)}</td>
                  <td>
                    {renaming === key.id ? (
                      <RenameForm passkey={key} onDone={() => setRenaming(null)} />
                    ) : deleting === key.id ? (
                      <Confirm
                        action="Delete the passkey"
                        busy={remove.isPending}
                        onConfirm={() => remove.mutate(key.id)}
                        onCancel={() => setDeleting(null)}
                      >
                        {last
                          ? "This is your last passkey: deleting it turns two-factor sign-in off, and everyone on the account signs in with a password alone."
                          : "This passkey stops working for your sign-in."}
                      </Confirm>
                    ) : (
                      <div className="actions">
                        <button type="button" onClick={() => setRenaming(key.id)} aria-describedby={rowId}>
                          Rename
                        </button>
                        <button type="button" className="danger" onClick={() => setDeleting(key.id)} aria-describedby={rowId}>
                          Delete
                        </button>
                      </div>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {last ? <p className="muted">Deleting your only passkey turns two-factor sign-in off for the account.</p> : null}
      <ErrorBox error={remove.error} />
    </>
  );
}

function RenameForm({ passkey, onDone }: { passkey: Passkey; onDone: () => void }) {
  const refresh = useRefresh();
  const [name, setName] = useState(passkey.name);
  const rename = useMutation({
    mutationFn: () =>
      must(api.PATCH("/auth/passkeys/{passkey_id}", { params: { path: { passkey_id: passkey.id } }, body: { name: name.trim() } })),
    onSuccess: () => {
      featureUsed("passkeys.rename");
      refresh();
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate();
  };
  return (
    <form className="team-row-form" onSubmit={submit} aria-label={`Rename ${passkey.name}`}>
      <Field
        label={`New name for ${passkey.name}`}
        name="name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        autoComplete="off"
        required
        error={rename.error}
      />
      <div className="actions">
        <button type="submit" className="primary" disabled={rename.isPending || !name.trim()}>
          Save
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      {fieldError(rename.error, "name") ? null : <ErrorBox error={rename.error} />}
    </form>
  );
}
