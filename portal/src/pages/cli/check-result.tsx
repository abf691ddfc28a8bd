// One CLI check's result: what was sent and what the number saw, side by side with the route's
// change marked, the result in plain words, the call's timing and its audio quality both ways.
import { Link } from "wouter";
import { useDestinations } from "../../api/destinations.ts";
import { Status } from "../../components/ui.tsx";
import { money, ms, when } from "../../lib/format.ts";
import { changedPart, countryName, destinationLabel, meaning, mos, resultName, type CliCheck } from "./shared.tsx";

/** The received number with the part the route changed marked. */
function Changed({ sent, received }: { sent: string; received: string }) {
  const part = changedPart(sent, received);
  // Only characters dropped (a + or a country code): the whole number is what changed.
  if (!part.changed)
    return (
      <mark className="cli-changed" title="What the route changed">
        {received}
      </mark>
    );
  return (
    <>
      {part.before}
      <mark className="cli-changed" title="What the route changed">
        {part.changed}
      </mark>
      {part.after}
    </>
  );
}

function Received({ check }: { check: CliCheck }) {
  const received = check.received;
  if (!received) {
    return (
      <p className="muted" data-testid="received-nothing">
        {check.status === "placing" ? "Nothing yet: waiting for the call to arrive." : "Nothing arrived."}
      </p>
    );
  }
  const marked = check.result === "modified";
  return (
    <dl className="facts">
      <dt>From</dt>
      <dd data-testid="received-from">
        {received.from ? marked ? <Changed sent={check.sent.caller_id} received={received.from} /> : received.from : "none"}
      </dd>
      <dt>Display name</dt>
      <dd>{received.display_name ?? "none"}</dd>
      <dt>P-Asserted-Identity</dt>
      <dd>{received.asserted ?? "none"}</dd>
      <dt>Privacy</dt>
      <dd>{received.privacy.length ? received.privacy.join(", ") : "none"}</dd>
      <dt>Identity (STIR/SHAKEN)</dt>
      <dd>{received.identity_present ? "present" : "absent"}</dd>
      <dt>Arrived</dt>
      <dd>{when(received.arrived_at)}</dd>
    </dl>
  );
}

/** The result of `check`, as a card headed by what was checked. */
export function CheckResult({ check, headingId }: { check: CliCheck; headingId: string }) {
  const destinations = useDestinations();
  return (
    <section
      className="card cli-result"
      aria-labelledby={headingId}
      data-testid="cli-result"
      data-check-id={check.id}
      data-result={resultName(check)}
    >
      <h2 id={headingId}>
        Check to {countryName(check.country)}: <Status value={check.status === "completed" ? check.result : check.status} />
        {check.change ? (
          <>
            {" "}
            <span className="badge cli-change">{check.change} changed</span>
          </>
        ) : null}
      </h2>
      <p data-testid="cli-meaning">{meaning(check)}</p>
      <div className="cols cli-compare">
        <div>
          <h3>Sent</h3>
          <dl className="facts">
            <dt>Caller ID</dt>
            <dd data-testid="sent-caller-id">{check.sent.caller_id}</dd>
            <dt>Through</dt>
            <dd>{destinationLabel(destinations.data, check.destination_id)}</dd>
            <dt>Number called</dt>
            <dd>
              {check.number_called}
              {check.hosted ? " (a hosted number)" : ""}
            </dd>
            <dt>Asked</dt>
            <dd>
              {when(check.created_at)}
              {check.created_by ? ` by ${check.created_by}` : ""}
            </dd>
          </dl>
        </div>
        <div>
          <h3>Received</h3>
          <Received check={check} />
        </div>
      </div>
      <h3>The call</h3>
      <dl className="facts">
        <dt>Post-dial delay</dt>
        <dd>{ms(check.post_dial_delay_ms)}</dd>
        <dt>Answer delay</dt>
        <dd>{ms(check.answer_delay_ms)}</dd>
        <dt>MOS, as the number heard the platform</dt>
        <dd>{mos(check.mos.sent)}</dd>
        <dt>MOS, as the platform heard the number</dt>
        <dd>{mos(check.mos.received)}</dd>
        <dt>SIP answer</dt>
        <dd>{[check.sip_code, check.sip_reason].filter((part) => part !== null && part !== "").join(" ") || "—"}</dd>
        <dt>Fee</dt>
        <dd>{money(check.fee_usd)}</dd>
      </dl>
      {check.call_id ? (
        <p>
          <Link href={`/calls/${check.call_id}`}>Open the check&apos;s call</Link>
        </p>
      ) : null}
    </section>
  );
}
