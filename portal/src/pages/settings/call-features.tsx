// The calls the platform places for the account (GET/PUT /customer/call-features, our extension):
// test calls and the web dialer, switched by the owner; a member sees them. And the way to the dialer.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { ErrorBox, Loading } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { usePermissions } from "../../session/hooks.ts";

const KEY = ["settings", "call-features"];
type Features = Schemas["CallFeatures"];

export function CallFeatures() {
  const { owner } = usePermissions();
  const features = useQuery({ queryKey: KEY, queryFn: () => must(api.GET("/customer/call-features")) });
  return (
    <section className="card" aria-labelledby="features-heading">
      <h2 id="features-heading">Call features</h2>
      <p className="muted">
        Calls the platform places for the account: test calls (and the calls that verify a caller ID), and calls from the web dialer.
      </p>
      {features.isPending ? <Loading what="Loading the call features" /> : null}
      <ErrorBox error={features.error} />
      {features.data ? owner ? <FeaturesForm saved={features.data} /> : <FeaturesShown features={features.data} /> : null}
      <h3>Web dialer</h3>
      <p>
        <a href="/dialer">Open the web dialer</a>{" "}
        <span className="muted">
          (calls from the browser through the service, treated like production calls
          {features.data && !features.data.dialer_enabled ? "; switch the dialer on above first" : ""})
        </span>
      </p>
    </section>
  );
}

function FeaturesShown({ features }: { features: Features }) {
  return (
    <>
      <dl className="facts">
        <dt>Test calls</dt>
        <dd>{features.test_calls_enabled ? "On" : "Off"}</dd>
        <dt>Web dialer</dt>
        <dd>{features.dialer_enabled ? "On" : "Off"}</dd>
      </dl>
      <p className="muted">Only the account&apos;s owner switches these.</p>
    </>
  );
}

function FeaturesForm({ saved }: { saved: Features }) {
  const queries = useQueryClient();
  const [testCalls, setTestCalls] = useState(saved.test_calls_enabled);
  const [dialer, setDialer] = useState(saved.dialer_enabled);
  const save = useMutation({
    mutationFn: () => must(api.PUT("/customer/call-features", { body: { test_calls_enabled: testCalls, dialer_enabled: dialer } })),
    onSuccess: (next) => {
      featureUsed("settings.call_features");
      queries.setQueryData(KEY, next);
      void queries.invalidateQueries({ queryKey: ["me"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Call features">
      <div className="check">
        <input id="feature-test-calls" type="checkbox" checked={testCalls} onChange={(e) => setTestCalls(e.target.checked)} />
        <label htmlFor="feature-test-calls">Test calls: the platform may call numbers you confirm, to test the service</label>
      </div>
      <div className="check">
        <input id="feature-dialer" type="checkbox" checked={dialer} onChange={(e) => setDialer(e.target.checked)} />
        <label htmlFor="feature-dialer">Web dialer: people of the account may place calls from the browser</label>
      </div>
      <button
        type="submit"
        className="primary"
        disabled={save.isPending || (testCalls === saved.test_calls_enabled && dialer === saved.dialer_enabled)}
      >
        Save the call features
      </button>
      {save.isSuccess ? <p role="status">Saved.</p> : null}
      <ErrorBox error={save.error} />
    </form>
  );
}
