// The account's one signed webhook (GET/PUT /customer/webhook): its URL, and its signing secret,
// write-only (typed into a password box, or generated here and shown once to copy into the
// receiver; the page shows only whether one is set). "Send a test" posts a webhook.test event now
// and shows what the receiver answered. An agent's set_webhook links here with ?webhook_url=…: the
// form opens with that URL filled in, for a person to add the secret.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { ConfirmButton, ErrorBox, Field, Loading, Secret } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { ms } from "../../lib/format.ts";
import { useUrlState } from "../../lib/url-state.ts";
import { allShown } from "../automation/shared.tsx";
import { Deliveries } from "./deliveries.tsx";
import { answerOf, keys } from "./shared.tsx";

type Webhook = Schemas["Webhook"];

/** A Standard Webhooks secret: whsec_ and the base64 of 24 random bytes. */
function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** The API's codes beside the secret's field, in words. */
function explained(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.fields.secret !== "webhook_secret_required") return error;
  const message = "A webhook needs its signing secret: type one, or generate one.";
  return new ApiError(error.status, message, { ...error.fields, secret: message });
}

export function WebhookSection() {
  const webhook = useQuery({ queryKey: keys.webhook, queryFn: () => must(api.GET("/customer/webhook")) });
  return (
    <section className="card" aria-labelledby="webhook-heading">
      <h2 id="webhook-heading">Webhook</h2>
      <p className="muted">
        Every verdict, route alert and controlled number is posted as JSON to this URL, signed with the secret as the Standard Webhooks
        specification says (headers webhook-id, webhook-timestamp and webhook-signature). A receiver that does not answer 2xx is retried for
        about a day.
      </p>
      {webhook.isPending ? <Loading what="Loading the webhook" /> : null}
      <ErrorBox error={webhook.error} />
      {webhook.data ? <WebhookSettings webhook={webhook.data} /> : null}
      <Deliveries />
    </section>
  );
}

function WebhookSettings({ webhook }: { webhook: Webhook }) {
  const queries = useQueryClient();
  const url = useUrlState();
  const proposed = url.get("webhook_url");
  const [form, setForm] = useState({ url: proposed || webhook.url || "", secret: "" });
  const [generated, setGenerated] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const done = (message: string) => {
    setSaved(message);
    setForm((f) => ({ ...f, secret: "" }));
    setGenerated(null);
    if (proposed) url.set({ webhook_url: null }, { keepOffset: true });
    void queries.invalidateQueries({ queryKey: keys.webhook });
  };
  const put = useMutation({
    mutationFn: async (body: Schemas["PutWebhook"]) => {
      try {
        return await must(api.PUT("/customer/webhook", { body }));
      } catch (err) {
        throw explained(err);
      }
    },
  });
  const test = useMutation({
    mutationFn: () => must(api.POST("/customer/webhook/test")),
    onSuccess: () => {
      featureUsed("alerts.webhook.test");
      void queries.invalidateQueries({ queryKey: keys.deliveries });
    },
  });
  const save = (event: FormEvent) => {
    event.preventDefault();
    setSaved(null);
    const body = { url: form.url.trim() || null, ...(form.secret ? { secret: form.secret } : {}) };
    put.mutate(body, {
      onSuccess: (w) => {
        // The answer is the webhook as stored: shown at once, not after the list's next read.
        queries.setQueryData(keys.webhook, w);
        featureUsed("alerts.webhook.save");
        done(w.url ? `Saved: events go to ${w.url}.` : "Saved: no webhook URL.");
      },
    });
  };
  const remove = () => {
    setSaved(null);
    put.mutate(
      { url: null, secret: null },
      {
        onSuccess: () => {
          featureUsed("alerts.webhook.remove");
          setForm({ url: "", secret: "" });
          done("The webhook is removed: no event is sent.");
        },
      },
    );
  };
  const clearSecret = () => {
    setSaved(null);
    put.mutate({ secret: null }, { onSuccess: () => done("The signing secret is cleared.") });
  };
  const generate = () => {
    const secret = newSecret();
    setGenerated(secret);
    setForm((f) => ({ ...f, secret }));
  };
  const error = put.error;
  return (
    <>
      <dl className="facts">
        <dt>URL</dt>
        <dd data-testid="webhook-url">{webhook.url ?? <span className="muted">Not set</span>}</dd>
        <dt>Signing secret</dt>
        <dd>
          <span className={webhook.secret_set ? "badge on" : "badge off"} data-testid="webhook-secret-state">
            {webhook.secret_set ? "Set" : "Not set"}
          </span>
        </dd>
      </dl>
      {proposed ? (
        <p className="banner info">
          An agent proposed this URL. Check it, type or generate the signing secret, and save: the secret never passes through the agent.
        </p>
      ) : null}
      <form onSubmit={save} aria-label="Webhook settings" className="webhook-form" noValidate>
        <div className="cols">
          <Field
            label="Webhook URL"
            name="url"
            value={form.url}
            onChange={(e) => setForm({ ...form, url: e.target.value })}
            error={error}
            autoComplete="off"
            spellCheck={false}
            inputMode="url"
            placeholder="https://hooks.example.com/call-shield"
            hint="https, to a public address. Empty: no webhook."
          />
          <div>
            <Field
              label={webhook.secret_set ? "New signing secret" : "Signing secret"}
              name="secret"
              type="password"
              value={form.secret}
              onChange={(e) => {
                setGenerated(null);
                setForm({ ...form, secret: e.target.value });
              }}
              error={error}
              autoComplete="new-password"
              spellCheck={false}
              hint={
                webhook.secret_set
                  ? "Write-only: the stored one is never shown. Leave empty to keep it."
                  : "whsec_ and base64 (Standard Webhooks), or any text of 16 characters or more. Write-only: never shown again."
              }
            />
            <button type="button" className="link" onClick={generate}>
              Generate a secret
            </button>
          </div>
        </div>
        {generated ? <Secret label="Signing secret" value={generated} /> : null}
        {allShown(error, ["url", "secret"]) ? null : <ErrorBox error={error} />}
        <div className="actions">
          <button type="submit" className="primary" disabled={put.isPending}>
            {put.isPending ? "Saving…" : "Save the webhook"}
          </button>
          <button
            type="button"
            onClick={() => {
              setSaved(null);
              test.mutate();
            }}
            disabled={test.isPending}
          >
            {test.isPending ? "Sending…" : "Send a test"}
          </button>
          {webhook.url ? (
            <ConfirmButton
              question="Remove the webhook and its secret? No event is sent after this."
              confirm="Remove it"
              onConfirm={remove}
              busy={put.isPending}
            >
              Remove the webhook
            </ConfirmButton>
          ) : webhook.secret_set ? (
            <button type="button" className="danger" onClick={clearSecret} disabled={put.isPending}>
              Clear the secret
            </button>
          ) : null}
        </div>
      </form>
      <div aria-live="polite">
        {saved ? <p className="ok">{saved}</p> : null}
        {test.data ? <TestOutcome result={test.data} /> : null}
      </div>
      <ErrorBox error={test.error} />
    </>
  );
}

function TestOutcome({ result }: { result: Schemas["WebhookTestResult"] }) {
  return (
    <p className="test-outcome" data-testid="webhook-test-result">
      <strong>Test event:</strong>{" "}
      <span className={result.delivered ? "badge delivered" : "badge failed"}>{result.delivered ? "Delivered" : "Not delivered"}</span>{" "}
      {answerOf(result.status_code, result.error)}, {ms(result.latency_ms)}
    </p>
  );
}
