// The signed-in person's own security: their password and signing out of every browser. The
// account's passkeys (its second factor), people, API keys and agents are on Team and access.
// An administrator acting as the account may change neither (the API refuses both).
import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Link } from "wouter";
import { ErrorBox, Loading, PageTitle } from "../../components/ui.tsx";
import { useMe, usePermissions } from "../../session/hooks.ts";
import { session } from "../../session/session.ts";
import { ChangePasswordForm } from "../auth/change-password-form.tsx";
import { NOT_WHILE_ACTING } from "../team/shared.tsx";

export default function AccountPage() {
  const me = useMe();
  const { owner, impersonating } = usePermissions();
  const [changed, setChanged] = useState(false);
  const everywhere = useMutation({ mutationFn: () => session.signOutEverywhere() });
  const refusedId = useId();
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
          <dd>
            {me.data.twofa_enabled ? "on (password and passkey)" : "off"}
            {owner ? (
              <>
                {" "}
                (<Link href="/team">passkeys on Team and access</Link>)
              </>
            ) : null}
          </dd>
        </dl>
      </section>
      <section className="card" aria-labelledby="password">
        <h2 id="password">Password</h2>
        {impersonating ? (
          <p>Your password cannot be changed while an administrator acts as the account.</p>
        ) : (
          <>
            {changed ? <p role="status">Your password is changed; every other session was signed out.</p> : null}
            <ChangePasswordForm
              onChanged={async () => {
                await session.afterPasswordChange();
                setChanged(true);
              }}
            />
          </>
        )}
      </section>
      <section className="card" aria-labelledby="sessions">
        <h2 id="sessions">Sessions</h2>
        <p>Sign out of every browser and device, this one included. API keys keep working.</p>
        <button
          type="button"
          onClick={() => everywhere.mutate()}
          disabled={everywhere.isPending || impersonating}
          aria-describedby={impersonating ? refusedId : undefined}
        >
          Sign out everywhere
        </button>
        {impersonating ? (
          <small id={refusedId} className="team-refused">
            {NOT_WHILE_ACTING}
          </small>
        ) : null}
        <ErrorBox error={everywhere.error} />
      </section>
    </>
  );
}
