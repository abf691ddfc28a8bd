// The company profile: the account's name and e-mail as GET /auth/me has them (no endpoint changes
// the company name: support does), and the profile answers, phone included (GET/PUT /customer/profile).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link } from "wouter";
import { api, must, type Schemas } from "../../api/client.ts";
import { ErrorBox, Field, Loading } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { when } from "../../lib/format.ts";
import { useMe } from "../../session/hooks.ts";

const PROFILE_KEY = ["settings", "profile"];

const QUESTIONS = [
  ["phone", "Phone", "tel"],
  ["contact_role", "Your role", "organization-title"],
  ["switch_vendor", "Switch or SBC that sends us your calls", "off"],
  ["expected_volume", "Calls a day, about", "off"],
  ["region", "Where your customers are", "off"],
  ["referral_source", "How you heard of us", "off"],
] as const;

type Name = (typeof QUESTIONS)[number][0];
type Profile = NonNullable<Schemas["Profile"]>;

export function Company() {
  const me = useMe();
  const profile = useQuery({ queryKey: PROFILE_KEY, queryFn: () => must(api.GET("/customer/profile")) });
  return (
    <section className="card" aria-labelledby="company-heading">
      <h2 id="company-heading">Company profile</h2>
      {me.data ? (
        <dl className="facts">
          <dt>Company</dt>
          <dd>{me.data.company ?? <span className="muted">Not set</span>}</dd>
          <dt>Account e-mail</dt>
          <dd>{me.data.email}</dd>
        </dl>
      ) : null}
      <p className="muted">
        The company name and the account&apos;s e-mail are set at sign-up; to change them, <Link href="/support">write to support</Link>.
      </p>
      {profile.isPending ? <Loading what="Loading the profile" /> : null}
      <ErrorBox error={profile.error} />
      {profile.data ? <ProfileForm saved={profile.data} /> : null}
    </section>
  );
}

function ProfileForm({ saved }: { saved: Profile }) {
  const queries = useQueryClient();
  const [values, setValues] = useState<Record<Name, string>>(
    () => Object.fromEntries(QUESTIONS.map(([name]) => [name, saved[name] ?? ""])) as Record<Name, string>,
  );
  const save = useMutation({
    mutationFn: () =>
      must(api.PUT("/customer/profile", { body: Object.fromEntries(QUESTIONS.map(([name]) => [name, values[name].trim() || null])) })),
    onSuccess: (data) => {
      featureUsed("settings.profile");
      queries.setQueryData(PROFILE_KEY, data);
      void queries.invalidateQueries({ queryKey: ["me"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Company profile">
      <div className="grid">
        {QUESTIONS.map(([name, label, autoComplete]) => (
          <Field
            key={name}
            label={label}
            name={name}
            type={name === "phone" ? "tel" : "text"}
            autoComplete={autoComplete}
            maxLength={500}
            value={values[name]}
            onChange={(e) => setValues({ ...values, [name]: e.target.value })}
            error={save.error}
          />
        ))}
      </div>
      <button type="submit" className="primary" disabled={save.isPending}>
        Save the profile
      </button>
      {save.isSuccess ? <p role="status">Saved.</p> : null}
      {saved.profile_completed_at ? <p className="muted">Last saved {when(saved.profile_completed_at)}.</p> : null}
      <ErrorBox error={save.error} />
    </form>
  );
}
