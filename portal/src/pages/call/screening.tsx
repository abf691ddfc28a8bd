// What screening found before the call rang: the caller ID's attestation (A, B or C) and whether its
// STIR/SHAKEN signature held (verified, failed with the reason, or absent), a carrier's own verdict
// (verstat), each rule that flagged the call with what it saw, and what admission did about it.
import { Fragment, type ReactNode } from "react";
import { Link } from "wouter";
import { Empty } from "../../components/ui.tsx";
import { when, words } from "../../lib/format.ts";
import { ruleTitle } from "../screening/rules.ts";
import type { CallDetail } from "./shared.ts";

type Screening = NonNullable<CallDetail["screening"]>;

export const ATTESTATIONS: Record<string, string> = {
  A: "A, full: the signing carrier knows the caller and that the caller may use this number.",
  B: "B, partial: the signing carrier knows the caller, not that the caller may use this number.",
  C: "C, gateway: the signing carrier only passed the call on from elsewhere.",
};

const STATUSES: Record<string, string> = {
  verified: "The signature, its certificate and its time all hold.",
  failed: "The call carried an Identity header that did not hold.",
  absent: "The call carried no Identity header to verify.",
};

/** Why verification failed, in plain words (IdentityFacts.reason in schema/screening.ts). */
const REASONS: Record<string, string> = {
  malformed: "the Identity header or its PASSporT could not be read",
  unsupported_ppt: "the PASSporT is of a kind not verified here",
  bad_signature: "the signature does not match the PASSporT: it was altered or signed by another key",
  stale_iat: "the PASSporT was signed more than 60 seconds before the call",
  x5u_refused: "the certificate's address (x5u) is private or not https, so it was not fetched",
  x5u_unreachable: "the certificate could not be fetched from its address (x5u)",
  untrusted_certificate: "the certificate does not lead to a trusted STIR/SHAKEN authority",
  expired_certificate: "the certificate has expired",
  orig_mismatch: "the PASSporT signs another number than the caller ID",
};

export const reasonText = (reason: string | null | undefined) => (reason ? (REASONS[reason] ?? words(reason)) : null);

const VERSTAT: Record<string, string> = {
  "TN-Validation-Passed": "passed",
  "TN-Validation-Failed": "failed",
  "No-TN-Validation": "not verified",
};

function Facts({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl className="facts">
      {rows.map(([name, value]) => (
        <Fragment key={name}>
          <dt>{name}</dt>
          <dd>{value === null || value === undefined || value === "" ? "—" : value}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

/** The PASSporT's details only when the call carried one: an absent identity has none to show. */
const withValues = (rows: [string, ReactNode][]) =>
  rows.filter(([name, value]) => ["Identity", "Attestation", "Outcome"].includes(name) || (value !== null && value !== undefined));

const actionTaken = (s: Screening) =>
  s.action === "refuse"
    ? `Refused before it rang (603 Decline), by the rule "${ruleTitle(s.rule ?? "")}".`
    : s.action === "divert"
      ? `Diverted to another destination by the rule "${ruleTitle(s.rule ?? "")}".`
      : "Let through: no rule refused or diverted it.";

export function CallScreening({ call }: { call: CallDetail }) {
  const screening = call.screening ?? null;
  const identity = screening?.identity ?? null;
  const status = call.identity_status ?? identity?.status ?? null;
  const attestation = call.attestation ?? identity?.attestation ?? null;
  const reason = call.identity_reason ?? identity?.reason ?? null;
  const known = !!status || !!screening;
  return (
    <section className="card call-screening" aria-labelledby="screening-heading" data-testid="call-screening">
      <h2 id="screening-heading">Screening</h2>
      {!known ? (
        <Empty>This call was not screened: it came before screening, or not from your trunk.</Empty>
      ) : (
        <>
          <Facts
            rows={withValues([
              [
                "Identity",
                status ? (
                  <span data-testid="identity-status" data-status={status}>
                    <span className={`badge identity-${status}`}>{status}</span> {STATUSES[status] ?? ""}
                    {reason ? <span data-testid="identity-reason"> Why: {reasonText(reason)}.</span> : null}
                  </span>
                ) : null,
              ],
              ["Attestation", attestation ? <span data-testid="attestation">{ATTESTATIONS[attestation] ?? attestation}</span> : "None"],
              ["Signed number", identity?.orig_tn],
              ["Signed at", identity?.iat ? when(new Date(identity.iat * 1000).toISOString()) : null],
              ["Certificate", identity?.x5u ? <code className="screening-x5u">{identity.x5u}</code> : null],
              [
                "Carrier's verification",
                identity?.verstat ? `${VERSTAT[identity.verstat] ?? identity.verstat} (${identity.verstat})` : null,
              ],
              ["Outcome", screening ? actionTaken(screening) : null],
            ])}
          />
          <h3>Flags</h3>
          {screening?.flags.length ? (
            <ul className="screening-flags">
              {screening.flags.map((f, i) => (
                <li key={i} data-testid="screening-flag" data-rule={f.rule} data-action={f.action}>
                  <strong>{ruleTitle(f.rule)}</strong>
                  <span className={`badge screening-${f.action}`}>{words(f.action)}</span>: {f.detail}
                </li>
              ))}
            </ul>
          ) : (
            <Empty>No rule flagged this call.</Empty>
          )}
          <p className="muted">
            <Link href="/screening">Screening rules</Link> say what each finding does.
          </p>
        </>
      )}
    </section>
  );
}
