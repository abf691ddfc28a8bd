// A new account: e-mail, password (the policy's length from /auth/config), company and name, and
// the Terms accepted. Opened from the OAuth consent page (?return_to=/oauth/authorize?...), it goes
// back there once the account exists, so the person can let their AI agent in.
import { useState, type FormEvent } from "react";
import { Link, useSearchParams } from "wouter";
import { ErrorBox, Field } from "../../components/ui.tsx";
import { useAuthConfig } from "../../session/hooks.ts";
import { session } from "../../session/session.ts";

/** Only the consent page of this origin may be returned to. */
export function safeReturn(to: string | null): string | null {
  if (!to || !/^\/(api\/)?oauth\/authorize(\?|$)/.test(to)) return null;
  return to;
}

export function SignUpPage() {
  const config = useAuthConfig();
  const [params] = useSearchParams();
  const returnTo = safeReturn(params.get("return_to"));
  const [form, setForm] = useState({ email: "", password: "", company: "", full_name: "", accept_terms: false });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const min = config.data?.password_min_length ?? 12;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await session.signUp({ ...form, company: form.company || null, full_name: form.full_name || null });
      if (returnTo) window.location.assign(returnTo);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (config.data && !config.data.signup_enabled) {
    return (
      <main id="main" className="auth">
        <h1>Sign-up is closed</h1>
        <p>
          New accounts are not being opened here. <Link href="/sign-in">Sign in</Link>
        </p>
      </main>
    );
  }
  return (
    <main id="main" className="auth">
      <h1>Create your Call Shield account</h1>
      {returnTo ? <p className="muted">Once your account exists you go back to let your AI agent in.</p> : null}
      <form onSubmit={(e) => void submit(e)}>
        <Field
          label="E-mail"
          name="email"
          type="email"
          autoComplete="email"
          required
          value={form.email}
          error={error}
          onChange={(e) => setForm({ ...form, email: e.target.value })}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={min}
          hint={`At least ${min} characters.`}
          value={form.password}
          error={error}
          onChange={(e) => setForm({ ...form, password: e.target.value })}
        />
        <Field
          label="Company"
          name="company"
          autoComplete="organization"
          value={form.company}
          error={error}
          onChange={(e) => setForm({ ...form, company: e.target.value })}
        />
        <Field
          label="Your name"
          name="full_name"
          autoComplete="name"
          value={form.full_name}
          error={error}
          onChange={(e) => setForm({ ...form, full_name: e.target.value })}
        />
        <div className="check">
          <input
            id="accept-terms"
            type="checkbox"
            checked={form.accept_terms}
            onChange={(e) => setForm({ ...form, accept_terms: e.target.checked })}
            required
          />
          <label htmlFor="accept-terms">I accept the Terms of service</label>
        </div>
        <button type="submit" className="primary" disabled={busy}>
          Create account
        </button>
      </form>
      <ErrorBox error={error} />
      <p>
        Already have an account? <Link href={returnTo ? `/sign-in?return_to=${encodeURIComponent(returnTo)}` : "/sign-in"}>Sign in</Link>
      </p>
    </main>
  );
}
