// The AI analysis tiers with their price per analysed call, the account's marked current
// (GET /customer/ai-modes), and changing it (PUT /customer/ai-mode): calls analysed from now on
// use the new tier; calls already running keep the one they started with.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must } from "../../api/client.ts";
import { ErrorBox, Loading } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { money } from "../../lib/format.ts";
import { AI_TIERS_KEY } from "./keys.ts";

export function AiTiers() {
  const queries = useQueryClient();
  const tiers = useQuery({ queryKey: AI_TIERS_KEY, queryFn: () => must(api.GET("/customer/ai-modes")) });
  const current = tiers.data?.find((t) => t.current)?.mode ?? "";
  const [picked, setPicked] = useState<string | null>(null);
  const chosen = picked ?? current;
  const save = useMutation({
    mutationFn: (mode: string) => must(api.PUT("/customer/ai-mode", { body: { mode } })),
    onSuccess: async () => {
      featureUsed("billing.ai_mode");
      setPicked(null);
      await Promise.all([queries.invalidateQueries({ queryKey: AI_TIERS_KEY }), queries.invalidateQueries({ queryKey: ["me"] })]);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (chosen) save.mutate(chosen);
  };
  return (
    <section className="card" aria-labelledby="ai-tiers-heading">
      <h2 id="ai-tiers-heading">AI analysis tier</h2>
      <p className="muted">
        Each analysed call is charged its tier&apos;s fee. A change applies to calls analysed from now on; calls already running keep the
        tier they started with.
      </p>
      {tiers.isPending ? <Loading what="Loading the AI tiers" /> : null}
      <ErrorBox error={tiers.error} />
      {tiers.data ? (
        <form onSubmit={submit} aria-label="AI analysis tier">
          <fieldset className="ai-tiers">
            <legend>Tier</legend>
            {tiers.data.map((tier) => (
              <div className="check" key={tier.mode}>
                <input
                  type="radio"
                  id={`ai-tier-${tier.mode}`}
                  name="mode"
                  value={tier.mode}
                  checked={chosen === tier.mode}
                  onChange={() => setPicked(tier.mode)}
                />
                <label htmlFor={`ai-tier-${tier.mode}`}>
                  <strong>{tier.mode}</strong>: {money(tier.analysis_fee_per_call)} per analysed call
                  {tier.current ? <span className="badge plan-current">Current</span> : null}
                </label>
              </div>
            ))}
          </fieldset>
          <button type="submit" className="primary" disabled={save.isPending || !chosen || chosen === current}>
            Use this tier
          </button>
          {save.isSuccess && !picked ? <p role="status">Calls analysed from now on use the {save.data.mode} tier.</p> : null}
          <ErrorBox error={save.error} />
        </form>
      ) : null}
    </section>
  );
}
