// Destinations (GET/POST/PATCH/DELETE /customer/destinations): where calls go, a SIP endpoint or a
// voice-AI agent. Each shows every field, its monitor's state (status, round trip, last answer or
// error, last check and last change) with "Check now" (POST …/check, a few seconds at most), and
// its write-only secrets (destination-secrets.tsx).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { useSearchParams } from "wouter";
import { api, must } from "../../api/client.ts";
import { Empty, ErrorBox, Loading } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { ms, when } from "../../lib/format.ts";
import { PROCESSING, SAMPLE_MODES, TRANSFER_MODES } from "./destination-choices.ts";
import { DestinationForm } from "./destination-form.tsx";
import { DestinationSecrets } from "./destination-secrets.tsx";
import { DeleteButton, destinationName, keys, TrunkError, useDestinations, useVoiceProviders, type Destination } from "./shared.tsx";

export function DestinationsSection() {
  const destinations = useDestinations();
  const [adding, setAdding] = useState(false);
  const [added, setAdded] = useState<Destination | null>(null);
  return (
    <section className="card" aria-labelledby="trunk-destinations">
      <div className="trunk-heading">
        <h2 id="trunk-destinations">Destinations</h2>
        {adding ? null : (
          <button
            type="button"
            className="primary"
            onClick={() => {
              setAdded(null);
              setAdding(true);
            }}
          >
            New destination
          </button>
        )}
      </div>
      <p className="muted">
        Where admitted calls go on to: your SIP endpoints, or voice-AI agents. The default destination takes every call no whitelist entry
        or routing rule sends elsewhere.
      </p>
      {adding ? <DestinationForm onDone={() => setAdding(false)} onCreated={setAdded} /> : null}
      {added ? (
        <p role="status" className="trunk-note">
          Destination {destinationName(added)} added.
          {added.has_credential ? " Its credential is stored; it is not shown again." : ""}
        </p>
      ) : null}
      {destinations.isPending ? <Loading what="Loading the destinations" /> : null}
      <ErrorBox error={destinations.error} />
      {destinations.data && destinations.data.length === 0 ? <Empty>No destination yet: calls have nowhere to go.</Empty> : null}
      {destinations.data?.length && !destinations.data.some((d) => d.is_default) ? (
        <p className="trunk-needed">No destination is the default: a call no rule matches is refused (no route).</p>
      ) : null}
      <div className="trunk-dests">
        {destinations.data?.map((d) => (
          <DestinationCard key={d.id} destination={d} />
        ))}
      </div>
    </section>
  );
}

const nameOf = (pairs: [string, string][], value: string) => pairs.find(([v]) => v === value)?.[1] ?? value;

function DestinationCard({ destination: d }: { destination: Destination }) {
  const queries = useQueryClient();
  const providers = useVoiceProviders();
  const headingId = useId();
  const [editing, setEditing] = useState(false);
  const refresh = () => void queries.invalidateQueries({ queryKey: keys.destinations });
  const makeDefault = useMutation({
    mutationFn: () =>
      must(api.PATCH("/customer/destinations/{dest_id}", { params: { path: { dest_id: d.id } }, body: { is_default: true } })),
    onSuccess: () => {
      featureUsed("trunk.destination.default");
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => must(api.DELETE("/customer/destinations/{dest_id}", { params: { path: { dest_id: d.id } } })),
    onSuccess: () => {
      featureUsed("trunk.destination.delete");
      refresh();
      // Its routing rules go with it; whitelist entries pointing at it fall back to routing.
      void queries.invalidateQueries({ queryKey: keys.rules });
      void queries.invalidateQueries({ queryKey: keys.ips });
    },
  });
  const provider = providers.data?.find((p) => p.key === d.provider);
  // ?destination=<id> (a link from an agent's answer: "set its credential here") brings the card into view.
  const [params] = useSearchParams();
  const linked = params.get("destination") === d.id;
  const self = useRef<HTMLElement>(null);
  useEffect(() => {
    if (linked) self.current?.scrollIntoView({ block: "start" });
  }, [linked]);
  return (
    <article
      ref={self}
      id={`destination-${d.id}`}
      className={linked ? "trunk-dest trunk-linked" : "trunk-dest"}
      aria-labelledby={headingId}
      data-destination-id={d.id}
    >
      <div className="trunk-heading">
        <h3 id={headingId}>{destinationName(d)}</h3>
        <span className="chips">
          {d.is_default ? <span className="badge trunk-ok">Default</span> : null}
          <span className="badge">{d.kind === "voice_ai" ? "Voice-AI agent" : "SIP endpoint"}</span>
          <MonitorBadge destination={d} />
        </span>
      </div>
      {editing ? (
        <DestinationForm destination={d} onDone={() => setEditing(false)} />
      ) : (
        <>
          <div className="trunk-dest-body">
            <div>
              <h4>Settings</h4>
              <dl className="facts">
                <dt>Address</dt>
                <dd>
                  <code>
                    {d.host}:{d.port}
                  </code>{" "}
                  over {d.transport.toUpperCase()}
                </dd>
                {d.kind === "voice_ai" ? (
                  <>
                    <dt>Provider</dt>
                    <dd>{provider?.name ?? d.provider ?? "—"}</dd>
                    <dt>Agent identifier</dt>
                    <dd>{d.agent_id ?? <span className="muted">None</span>}</dd>
                  </>
                ) : null}
                <dt>Tech prefix</dt>
                <dd>{d.tech_prefix ? <code>{d.tech_prefix}</code> : <span className="muted">None</span>}</dd>
                <dt>Processing</dt>
                <dd>{nameOf(PROCESSING, d.processing)}</dd>
                <dt>Sampling</dt>
                <dd>
                  {d.sample_rate === 1 ? "Every call" : `One call in ${d.sample_rate.toLocaleString()}`}:{" "}
                  {nameOf(SAMPLE_MODES, d.sample_mode)}
                </dd>
                <dt>Transfers</dt>
                <dd>{nameOf(TRANSFER_MODES, d.transfer_mode)}</dd>
                <dt>Config</dt>
                <dd>
                  {d.config ? <pre className="trunk-config">{JSON.stringify(d.config, null, 2)}</pre> : <span className="muted">None</span>}
                </dd>
                <dt>Added</dt>
                <dd>{when(d.created_at)}</dd>
              </dl>
            </div>
            <Monitor destination={d} />
            <DestinationSecrets destination={d} />
          </div>
          <div className="actions trunk-dest-actions">
            <button type="button" onClick={() => setEditing(true)} aria-describedby={headingId}>
              Edit
            </button>
            {d.is_default ? null : (
              <button type="button" onClick={() => makeDefault.mutate()} disabled={makeDefault.isPending} aria-describedby={headingId}>
                Make default
              </button>
            )}
            <DeleteButton what={destinationName(d)} busy={remove.isPending} describedBy={headingId} onDelete={() => remove.mutate()} />
          </div>
          <TrunkError error={makeDefault.error ?? remove.error} />
        </>
      )}
    </article>
  );
}

function MonitorBadge({ destination: d }: { destination: Destination }) {
  const text = d.monitor_status === "up" ? "Up" : d.monitor_status === "down" ? "Down" : "Not checked";
  return <span className={`badge monitor-${d.monitor_status}`}>{text}</span>;
}

/** One line of what the last OPTIONS found. */
function lastResult(d: Destination): string {
  if (!d.monitor_last_check_at) return "Never checked.";
  if (d.monitor_last_code !== null && d.monitor_last_code !== undefined) {
    return `Answered ${d.monitor_last_code}${d.monitor_rtt_ms !== null && d.monitor_rtt_ms !== undefined ? ` in ${ms(d.monitor_rtt_ms)}` : ""}.`;
  }
  return `No answer${d.monitor_last_error ? `: ${d.monitor_last_error}` : ""}.`;
}

function Monitor({ destination: d }: { destination: Destination }) {
  const queries = useQueryClient();
  const [result, setResult] = useState<string | null>(null);
  const check = useMutation({
    mutationFn: () => must(api.POST("/customer/destinations/{dest_id}/check", { params: { path: { dest_id: d.id } } })),
    onSuccess: (checked) => {
      featureUsed("trunk.destination.check");
      setResult(lastResult(checked));
      queries.setQueryData<Destination[]>(keys.destinations, (list) => list?.map((x) => (x.id === checked.id ? checked : x)));
    },
  });
  const toggle = useMutation({
    mutationFn: () =>
      must(
        api.PATCH("/customer/destinations/{dest_id}", {
          params: { path: { dest_id: d.id } },
          body: { monitor_enabled: !d.monitor_enabled },
        }),
      ),
    onSuccess: () => {
      featureUsed(d.monitor_enabled ? "trunk.destination.monitor_off" : "trunk.destination.monitor_on");
      void queries.invalidateQueries({ queryKey: keys.destinations });
    },
  });
  return (
    <div className="trunk-monitor">
      <h4>Monitor</h4>
      <dl className="facts" data-testid="monitor">
        <dt>Status</dt>
        <dd>
          <MonitorBadge destination={d} />
        </dd>
        <dt>Round trip</dt>
        <dd data-field="rtt">{ms(d.monitor_rtt_ms)}</dd>
        <dt>Last answer</dt>
        <dd data-field="code">{d.monitor_last_code ?? "—"}</dd>
        <dt>Last error</dt>
        <dd data-field="error">{d.monitor_last_error ?? "—"}</dd>
        <dt>Last check</dt>
        <dd>{when(d.monitor_last_check_at)}</dd>
        <dt>Last change</dt>
        <dd>{when(d.monitor_last_change_at)}</dd>
        <dt>Periodic checks</dt>
        <dd>
          {d.monitor_enabled ? "On: SIP OPTIONS at intervals" : "Off"}
          {d.monitor_supported === false ? " (the destination has never answered an OPTIONS)" : ""}
        </dd>
      </dl>
      <div className="actions">
        <button type="button" onClick={() => check.mutate()} disabled={check.isPending}>
          {check.isPending ? "Checking…" : "Check now"}
          <span className="visually-hidden"> {destinationName(d)}</span>
        </button>
        <button type="button" onClick={() => toggle.mutate()} disabled={toggle.isPending}>
          {d.monitor_enabled ? "Stop periodic checks" : "Start periodic checks"}
        </button>
      </div>
      <p className="trunk-note" role="status" aria-live="polite">
        {check.isPending ? "Sending one SIP OPTIONS; this takes a few seconds at most." : result}
      </p>
      <TrunkError error={check.error ?? toggle.error} />
    </div>
  );
}
