// What the account must know before anything else: an administrator acting as it, new Terms in
// force (the owner accepts them here), and the profile questions, which may be skipped.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../api/client.ts";
import { featureUsed } from "../lib/events.ts";
import { ErrorBox, Field } from "./ui.tsx";

type Me = Schemas["Account"];

export function ImpersonationBanner({ me }: { me: Me }) {
  if (!me.impersonated_by) return null;
  return (
    <div className="banner warn" role="status">
      You are viewing this account as <strong>{me.impersonated_by}</strong> (administrator). Credentials, passwords and passkeys cannot be
      changed from here.
    </div>
  );
}

export function TermsBanner({ me }: { me: Me }) {
  const queries = useQueryClient();
  const accept = useMutation({
    mutationFn: () => must(api.POST("/customer/terms/accept", {})),
    onSuccess: () => queries.invalidateQueries({ queryKey: ["me"] }),
  });
  if (!me.terms_current_version || me.terms_version === me.terms_current_version) return null;
  const owner = me.role === "owner" && !me.impersonated_by;
  return (
    <div className="banner info" role="region" aria-label="Terms of service">
      <span>
        The Terms of service changed (version {me.terms_current_version}).{" "}
        {owner ? "Please read and accept them." : "The account's owner accepts them."}
      </span>
      {owner ? (
        <button type="button" onClick={() => accept.mutate()} disabled={accept.isPending}>
          Accept the Terms
        </button>
      ) : null}
      <ErrorBox error={accept.error} />
    </div>
  );
}

const QUESTIONS = [
  ["switch_vendor", "Which switch or SBC sends us your calls?"],
  ["expected_volume", "About how many calls a day?"],
  ["contact_role", "Your role"],
  ["region", "Where are your customers?"],
  ["referral_source", "How did you hear of us?"],
] as const;

export function ProfileQuestions({ me }: { me: Me }) {
  const queries = useQueryClient();
  const [answers, setAnswers] = useState<Record<string, string>>({});
  const save = useMutation({
    mutationFn: (body: Schemas["ProfileUpdate"]) => must(api.PUT("/customer/profile", { body })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ["me"] }),
  });
  if (me.profile?.profile_completed_at || me.impersonated_by) return null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    featureUsed("profile.answered");
    save.mutate(Object.fromEntries(Object.entries(answers).filter(([, v]) => v.trim())));
  };
  return (
    <section className="card questions" aria-labelledby="profile-questions">
      <h2 id="profile-questions">A few questions (optional)</h2>
      <p className="muted">They help us set your account up; nothing here is required.</p>
      <form onSubmit={submit}>
        <div className="grid">
          {QUESTIONS.map(([name, label]) => (
            <Field
              key={name}
              name={name}
              label={label}
              value={answers[name] ?? ""}
              error={save.error}
              onChange={(e) => setAnswers({ ...answers, [name]: e.target.value })}
            />
          ))}
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            Save answers
          </button>
          <button type="button" onClick={() => save.mutate({ skipped: true })} disabled={save.isPending}>
            Skip
          </button>
        </div>
        <ErrorBox error={save.error} />
      </form>
    </section>
  );
}
