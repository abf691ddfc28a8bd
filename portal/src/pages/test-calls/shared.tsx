// What the test-call pages share: which statuses are final, how speech samples and results read,
// the API's refusals in plain words, and the steps a test call moves through.
import { ApiError } from "../../api/errors.ts";
import type { Schemas } from "../../api/client.ts";
import { duration, words } from "../../lib/format.ts";

export type TestCall = Schemas["TestCall"];
export type TestCallStatus = TestCall["status"];

export const FINAL: TestCallStatus[] = ["done", "failed", "cancelled", "expired"];
export const isFinal = (status: TestCallStatus) => FINAL.includes(status);

export const SPEECH: Record<string, { name: string; what: string; about: string }> = {
  route_test: { name: "Route test", what: "a neutral announcement", about: "a neutral announcement, to check the route" },
  scam_sample: {
    name: "Scam sample",
    what: "a known card-services scam script",
    about: "a known card-services scam script, to check screening; it rings only verified numbers",
  },
  verification_code: {
    name: "Verification code",
    what: "a verification code",
    about: "the code that verifies a caller ID of the account",
  },
};
export const speechName = (speech: string) => SPEECH[speech]?.name ?? words(speech);

/** The final SIP answer: "486 Busy Here", or "—". */
export const sipAnswer = (call: Pick<TestCall, "sip_code" | "sip_reason">) =>
  [call.sip_code, call.sip_reason].filter((part) => part !== null && part !== undefined && part !== "").join(" ") || "—";

export const talkTime = (seconds: number | null) => (seconds === null ? "—" : duration(seconds));

const PLAIN: Record<string, string> = {
  caller_id_not_verified: "This caller ID is not one of the account's verified numbers.",
  number_not_verified: "The scam sample and voice-agent mode ring only the account's verified numbers: verify this number first.",
  test_calls_disabled: "Test calls are not enabled on this account. Ask support to switch them on.",
  too_many_test_calls: "Too many test calls in the last hour: wait a little and try again.",
  portal_session_required: "Only a person signed in to the portal can confirm a test call.",
};

/** The API's refusal with its machine codes (in the detail or a field's message) said in plain words. */
export function plainError(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const fields = Object.fromEntries(Object.entries(error.fields).map(([name, msg]) => [name, PLAIN[msg] ?? msg]));
  const named = Object.entries(error.fields).map(([name, msg]) => PLAIN[msg] ?? `${name}: ${msg}`);
  const message = named.length ? named.join(" ") : (PLAIN[error.message.toLowerCase().replace(/ /g, "_")] ?? error.message);
  return new ApiError(error.status, message, fields, error.retryAfter);
}

const STEPS: TestCallStatus[] = ["queued", "dialing", "ringing", "answered", "done"];
const STEP_NAMES: Record<string, string> = {
  queued: "Queued",
  dialing: "Dialing",
  ringing: "Ringing",
  answered: "Answered",
  done: "Done",
};

/** The steps from queued to done, the ones passed ticked and the current one marked. */
export function Progress({ call }: { call: TestCall }) {
  const at = STEPS.indexOf(call.status);
  if (at < 0) return null;
  return (
    <ol className="tc-steps" aria-label="Progress of the test call">
      {STEPS.map((step, index) => (
        <li
          key={step}
          className={index < at || call.status === "done" ? "passed" : index === at ? "current" : "ahead"}
          aria-current={index === at ? "step" : undefined}
        >
          {STEP_NAMES[step]}
        </li>
      ))}
    </ol>
  );
}
