// Proof of control of a whitelisted range (POST /customer/ips/{ip_id}/verify, our extension). A
// wide range, or one over another account's unproven claim, admits no calls until the account
// shows it receives traffic there: a SIP OPTIONS sent to the ingress from an address of the range
// is answered 200 with the range's code in the X-Call-Shield-Proof header, which only a machine at
// that address receives. The code typed back here verifies the entry. A platform administrator may
// approve the range instead (asked through support).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link } from "wouter";
import { api, must } from "../../api/client.ts";
import { Field } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { keys, TrunkError, useNetworkInfo, type IpEntry } from "./shared.tsx";

/** The header of our OPTIONS answer that carries the code (worker/services/trunk/whitelist-proof.ts). */
export const PROOF_HEADER = "X-Call-Shield-Proof";

/** Does the entry wait for proof of control (rather than being disabled, displaced or admitting)? */
export const awaitsProof = (entry: IpEntry) =>
  entry.verification === "unverified" &&
  !entry.admits_calls &&
  entry.enabled &&
  !!entry.pending_reason &&
  !entry.pending_reason.startsWith("displaced");

/** An address inside the range to send from: the first host of an IPv4 range, the range itself otherwise. */
function exampleSource(cidr: string): string {
  const [address = cidr, bits] = cidr.split("/");
  if (address.includes(":") || !bits || Number(bits) >= 31) return address;
  const parts = address.split(".").map(Number);
  parts[3] = (parts[3] ?? 0) + 1;
  return parts.join(".");
}

export function ProofPanel({ entry, onDone }: { entry: IpEntry; onDone: () => void }) {
  const queries = useQueryClient();
  const network = useNetworkInfo();
  const [code, setCode] = useState("");
  const verify = useMutation({
    mutationFn: () =>
      must(api.POST("/customer/ips/{ip_id}/verify", { params: { path: { ip_id: entry.id } }, body: { code: code.trim() } })),
    onSuccess: () => {
      featureUsed("trunk.whitelist.verify");
      setCode("");
      void queries.invalidateQueries({ queryKey: keys.ips });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate();
  };
  const host = network.data?.ingress_host ?? "…";
  const port = network.data?.ingress_port ?? "…";
  const source = exampleSource(entry.cidr);
  return (
    <div className="trunk-proof" aria-label={`Prove control of ${entry.cidr}`} role="region">
      <h4>Prove control of {entry.cidr}</h4>
      <p>
        <strong>Waiting for proof or approval</strong> means that calls from {entry.cidr} are not admitted yet: the service does not answer
        their INVITEs, as if the range were not on the whitelist. It answers only a SIP OPTIONS, with the code that proves the range is
        yours. Why: {entry.pending_reason}.
      </p>
      <ol className="trunk-steps">
        <li>
          From an address inside the range (for example <code>{source}</code>), send a SIP OPTIONS to{" "}
          <code>
            {host}:{port}
          </code>{" "}
          over {(network.data?.transports ?? ["udp"]).map((t) => t.toUpperCase()).join(" or ")}. Any SIP tool that shows the answer&apos;s
          headers will do, for example{" "}
          <code>
            sipsak -vv -s sip:ping@{host}:{port}
          </code>{" "}
          run on that machine, or your SBC&apos;s OPTIONS ping with message logging.
        </li>
        <li>
          Our <code>200 OK</code> carries the header <code>{PROOF_HEADER}: …</code> with a 16-character code. Only a machine that receives
          packets at an address of the range sees it; a spoofed source never gets the answer.
        </li>
        <li>Enter the code here (an answer listing several codes, one per range holding that address, may be pasted whole).</li>
      </ol>
      <form className="inline-form" onSubmit={submit} aria-label={`Proof code for ${entry.cidr}`}>
        <Field
          label="Proof code"
          name="code"
          value={code}
          onChange={(e) => setCode(e.target.value)}
          placeholder="7K2M9QX4DV1T8HNB"
          autoComplete="off"
          spellCheck={false}
          required
          error={verify.error}
        />
        <button type="submit" className="primary" disabled={verify.isPending || code.trim() === ""}>
          {verify.isPending ? "Checking…" : "Verify"}
        </button>
        <button type="button" onClick={onDone}>
          Close
        </button>
      </form>
      <TrunkError error={verify.error} fields={["code"]} />
      <p className="muted">
        Once verified, the range admits calls whatever its width, and other accounts&apos; unproven claims over it stop admitting calls.
        Cannot send from the range? A platform administrator can approve it instead: <Link href={`/support?new=1`}>ask support</Link>,
        naming the range {entry.cidr} and your carrier.
      </p>
    </div>
  );
}
