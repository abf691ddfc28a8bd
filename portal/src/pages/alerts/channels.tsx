// Connected channels (/customer/alert-channels): Slack incoming webhooks and JSON webhooks that
// alert rules deliver to. The URL carries the channel's token: typed once, never shown again
// (only its host). Each channel can be tested (a connection-test message now), switched off, or
// removed (rules naming it skip it).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { ConfirmButton, Empty, ErrorBox, Field, Loading, SelectField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { ms, when } from "../../lib/format.ts";
import { allShown, CheckField, EnabledBadge } from "../automation/shared.tsx";
import { CHANNEL_KINDS, keys, problem, useChannels, type AlertChannel } from "./shared.tsx";

type ChannelTest = Schemas["AlertChannelTestResult"];

export function Channels() {
  const channels = useChannels();
  const [connecting, setConnecting] = useState(false);
  return (
    <section className="card" aria-labelledby="alert-channels">
      <div className="section-title">
        <h2 id="alert-channels">Connected channels</h2>
        {connecting ? null : (
          <button type="button" onClick={() => setConnecting(true)}>
            Connect a channel
          </button>
        )}
      </div>
      <p className="muted">Slack incoming webhooks and JSON webhooks that alert rules can deliver to, besides e-mail.</p>
      {connecting ? <ConnectChannel onDone={() => setConnecting(false)} /> : null}
      {channels.isPending ? <Loading what="Loading the channels" /> : null}
      <ErrorBox error={channels.error} />
      {channels.data && channels.data.length === 0 ? <Empty>No channel connected.</Empty> : null}
      {channels.data?.length ? <ChannelTable channels={channels.data} /> : null}
    </section>
  );
}

function ConnectChannel({ onDone }: { onDone: () => void }) {
  const queries = useQueryClient();
  const [form, setForm] = useState({ kind: "slack" as AlertChannel["kind"], label: "", url: "", enabled: true });
  const connect = useMutation({
    mutationFn: () =>
      must(
        api.POST("/customer/alert-channels", {
          body: { kind: form.kind, label: form.label.trim() || null, url: form.url.trim(), enabled: form.enabled },
        }),
      ),
    onSuccess: () => {
      featureUsed("alerts.channel.connect");
      void queries.invalidateQueries({ queryKey: keys.channels });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    connect.mutate();
  };
  const error = connect.error;
  return (
    <form className="rule-editor" onSubmit={submit} aria-label="Connect a channel" noValidate>
      <h3>Connect a channel</h3>
      <div className="grid">
        <SelectField
          label="Kind"
          name="kind"
          value={form.kind}
          onChange={(e) => setForm({ ...form, kind: e.target.value as AlertChannel["kind"] })}
          error={error}
        >
          <option value="slack">Slack incoming webhook</option>
          <option value="webhook">JSON webhook</option>
        </SelectField>
        <Field
          label="Label"
          name="label"
          value={form.label}
          onChange={(e) => setForm({ ...form, label: e.target.value })}
          error={error}
          autoComplete="off"
          placeholder="#fraud-desk"
        />
        <Field
          label="URL"
          name="url"
          type="password"
          value={form.url}
          onChange={(e) => setForm({ ...form, url: e.target.value })}
          error={error}
          autoComplete="off"
          spellCheck={false}
          hint="https, to a public address. It carries the channel's token: stored encrypted, only its host is shown again."
        />
      </div>
      <CheckField label="Enabled" name="enabled" checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: e.target.checked })} />
      {allShown(error, ["kind", "label", "url", "enabled"]) ? null : <ErrorBox error={error} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={connect.isPending}>
          {connect.isPending ? "Connecting…" : "Connect"}
        </button>
        <button type="button" onClick={onDone} disabled={connect.isPending}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function ChannelTable({ channels }: { channels: AlertChannel[] }) {
  const queries = useQueryClient();
  const base = useId();
  const [results, setResults] = useState<Record<string, ChannelTest>>({});
  const refresh = () => void queries.invalidateQueries({ queryKey: keys.channels });
  const test = useMutation({
    mutationFn: (id: string) => must(api.POST("/customer/alert-channels/{channel_id}/test", { params: { path: { channel_id: id } } })),
    onSuccess: (result) => {
      featureUsed("alerts.channel.test");
      setResults((r) => ({ ...r, [result.id]: result }));
    },
  });
  const toggle = useMutation({
    mutationFn: (channel: AlertChannel) =>
      must(
        api.PATCH("/customer/alert-channels/{channel_id}", {
          params: { path: { channel_id: channel.id } },
          body: { enabled: !channel.enabled },
        }),
      ),
    onSuccess: (channel) => {
      featureUsed(channel.enabled ? "alerts.channel.enable" : "alerts.channel.disable");
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE("/customer/alert-channels/{channel_id}", { params: { path: { channel_id: id } } })),
    onSuccess: () => {
      featureUsed("alerts.channel.delete");
      refresh();
      // Rules that named it skip it now.
      void queries.invalidateQueries({ queryKey: keys.rules });
    },
  });
  const busy = test.isPending || toggle.isPending || remove.isPending;
  return (
    <>
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">Connected channels</caption>
          <thead>
            <tr>
              <th scope="col">Channel</th>
              <th scope="col">Kind</th>
              <th scope="col">Host</th>
              <th scope="col">State</th>
              <th scope="col">Connected</th>
              <th scope="col">Last test</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {channels.map((channel) => {
              const rowId = `${base}-${channel.id}`;
              const result = results[channel.id];
              return (
                <tr key={channel.id} data-channel-id={channel.id}>
                  <th scope="row" id={rowId}>
                    {channel.label || <span className="muted">No label</span>}
                  </th>
                  <td>{CHANNEL_KINDS[channel.kind]}</td>
                  <td>{channel.url_host ?? <span className="muted">No URL</span>}</td>
                  <td>
                    <EnabledBadge enabled={channel.enabled} />
                  </td>
                  <td className="when">{when(channel.created_at)}</td>
                  <td aria-live="polite">
                    {result ? (
                      <>
                        <span className={result.sent ? "badge delivered" : "badge failed"}>{result.sent ? "Sent" : "Not sent"}</span>{" "}
                        {ms(result.latency_ms)}
                        {result.error ? <div className="muted">{problem(result.error)}</div> : null}
                      </>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td>
                    <div className="actions">
                      <button type="button" onClick={() => test.mutate(channel.id)} disabled={busy} aria-describedby={rowId}>
                        {test.isPending && test.variables === channel.id ? "Testing…" : "Test"}
                      </button>
                      <button type="button" onClick={() => toggle.mutate(channel)} disabled={busy} aria-describedby={rowId}>
                        {channel.enabled ? "Disable" : "Enable"}
                      </button>
                      <ConfirmButton
                        question="Remove this channel? Rules that name it skip it."
                        confirm="Remove the channel"
                        onConfirm={() => remove.mutate(channel.id)}
                        busy={busy}
                        describedBy={rowId}
                      >
                        Remove
                      </ConfirmButton>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <ErrorBox error={test.error ?? toggle.error ?? remove.error} />
    </>
  );
}
