// Sign in with a password; an account with two-factor sign-in then asks this browser's passkey
// (or has a member without one enrol it now). Any page opened while signed out shows this form
// and opens once signed in.
import { useState, type FormEvent } from "react";
import { Link } from "wouter";
import { ErrorBox, Field } from "../../components/ui.tsx";
import { session, type SignInResult } from "../../session/session.ts";
import { useAuthConfig, useSession } from "../../session/hooks.ts";

type Challenge = Extract<SignInResult, { done: false }>["challenge"];

export function SignInPage({ returnTo }: { returnTo?: string }) {
  const { reason } = useSession();
  const config = useAuthConfig();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const run = async (step: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await step();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const result = await session.signIn(email, password);
      if (!result.done) setChallenge(result.challenge);
    });
  };

  const passkey = () => void run(() => session.passkeyStep(challenge!));

  return (
    <main id="main" className="auth">
      <h1>Sign in to Call Shield</h1>
      {returnTo && returnTo !== "/" ? <p className="muted">Sign in to open {returnTo}.</p> : null}
      {reason ? (
        <p className="banner info" role="status">
          {reason}
        </p>
      ) : null}
      {challenge ? (
        <section aria-labelledby="second-factor">
          <h2 id="second-factor">{challenge.login_token ? "Confirm with your passkey" : "Add a passkey to sign in"}</h2>
          <p>
            {challenge.login_token
              ? "This account signs in with a password and a passkey. Use this device's passkey or your security key."
              : "This account signs in with a passkey as a second step, and you have none yet: create one on this device now."}
          </p>
          <button type="button" className="primary" onClick={passkey} disabled={busy} autoFocus>
            {challenge.login_token ? "Use my passkey" : "Create my passkey"}
          </button>{" "}
          <button type="button" onClick={() => setChallenge(null)} disabled={busy}>
            Back
          </button>
        </section>
      ) : (
        <form onSubmit={submit} noValidate={false}>
          <Field
            label="E-mail"
            name="email"
            type="email"
            autoComplete="username"
            required
            value={email}
            error={error}
            onChange={(e) => setEmail(e.target.value)}
          />
          <Field
            label="Password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            error={error}
            onChange={(e) => setPassword(e.target.value)}
          />
          <button type="submit" className="primary" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
      <ErrorBox error={error} />
      {config.data?.signup_enabled ? (
        <p>
          No account yet? <Link href="/sign-up">Create one</Link>
        </p>
      ) : null}
    </main>
  );
}
