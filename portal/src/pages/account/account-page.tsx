// The signed-in person's own security: password, passkeys (owners: the account's second factor)
// and signing out of every browser. The account's configuration is part two of the portal.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { startRegistration } from "@simplewebauthn/browser";
import { useState } from "react";
import { api, must } from "../../api/client.ts";
import { Empty, ErrorBox, Field, Loading, PageTitle } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { when } from "../../lib/format.ts";
import { useMe } from "../../session/hooks.ts";
import { session } from "../../session/session.ts";
import { ChangePasswordForm } from "../auth/change-password-form.tsx";

export default function AccountPage() {
  const me = useMe();
  const [changed, setChanged] = useState(false);
  const everywhere = useMutation({ mutationFn: () => session.signOutEverywhere() });
  if (!me.data) return <Loading />;
  return (
    <>
      <PageTitle>Your account</PageTitle>
      <section className="card" aria-labelledby="who">
        <h2 id="who">Signed in</h2>
        <dl className="facts">
          <dt>E-mail</dt>
          <dd>{me.data.user?.email ?? me.data.email}</dd>
          <dt>Company</dt>
          <dd>{me.data.company ?? "—"}</dd>
          <dt>Role</dt>
          <dd>{me.data.role}</dd>
          <dt>Two-factor sign-in</dt>
          <dd>{me.data.twofa_enabled ? "on (password and passkey)" : "off"}</dd>
        </dl>
      </section>
      <section className="card" aria-labelledby="password">
        <h2 id="password">Password</h2>
        {changed ? <p role="status">Your password is changed; every other session was signed out.</p> : null}
        <ChangePasswordForm
          onChanged={async () => {
            await session.afterPasswordChange();
            setChanged(true);
          }}
        />
      </section>
      {me.data.role === "owner" && !me.data.impersonated_by ? <Passkeys /> : null}
      <section className="card" aria-labelledby="sessions">
        <h2 id="sessions">Sessions</h2>
        <p>Sign out of every browser and device, this one included. API keys keep working.</p>
        <button type="button" onClick={() => everywhere.mutate()} disabled={everywhere.isPending}>
          Sign out everywhere
        </button>
        <ErrorBox error={everywhere.error} />
      </section>
    </>
  );
}

function Passkeys() {
  const queries = useQueryClient();
  const [name, setName] = useState("");
  const list = useQuery({ queryKey: ["passkeys"], queryFn: () => must(api.GET("/auth/passkeys")) });
  const register = useMutation({
    mutationFn: async () => {
      const begin = await must(api.POST("/auth/passkeys/register/begin", {}));
      const credential = await startRegistration({ optionsJSON: begin.options as never });
      return must(
        api.POST("/auth/passkeys/register/complete", { body: { credential: credential as never, state: begin.state, name: name || null } }),
      );
    },
    onSuccess: () => {
      featureUsed("passkeys.register");
      setName("");
      void queries.invalidateQueries({ queryKey: ["passkeys"] });
      void queries.invalidateQueries({ queryKey: ["me"] });
    },
  });
  return (
    <section className="card" aria-labelledby="passkeys">
      <h2 id="passkeys">Passkeys</h2>
      <p>With a passkey, signing in asks for it after the password, for everyone on the account.</p>
      {list.isPending ? <Loading /> : null}
      <ErrorBox error={list.error} />
      {list.data && list.data.length === 0 ? <Empty>No passkey yet.</Empty> : null}
      {list.data?.length ? (
        <ul className="plain">
          {list.data.map((key) => (
            <li key={key.id}>
              <strong>{key.name}</strong>{" "}
              <span className="muted">
                added {when(key.created_at)}, last used {when(key.last_used_at)}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          register.mutate();
        }}
      >
        <Field
          label="Name of the new passkey"
          name="name"
          value={name}
          placeholder="Work laptop"
          onChange={(e) => setName(e.target.value)}
          error={register.error}
        />
        <button type="submit" disabled={register.isPending}>
          Add a passkey
        </button>
      </form>
      <ErrorBox error={register.error} />
    </section>
  );
}
