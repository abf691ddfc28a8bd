// The certificate a PASSporT was signed with, and the chain it must have to the trust anchors
// (the STI-CAs the operator trusts, STIR_TRUST_ANCHORS_FILE). An x5u serves the signer's
// certificate first, perhaps followed by intermediates, in PEM (a DER certificate alone is read
// too). Checked with node:crypto's X509Certificate: each link's issuer name and signature, each
// certificate's dates, and that every issuer is a CA.
import { X509Certificate } from "node:crypto";

export type ChainProblem = "untrusted_certificate" | "expired_certificate";

/** Certificates no chain goes past: a longer one is not a SHAKEN chain (leaf, an intermediate or two). */
const MAX_DEPTH = 5;
const BEGIN = "-----BEGIN CERTIFICATE-----";
const END = "-----END CERTIFICATE-----";

/** The certificates of a PEM bundle (at most `limit`), or of one DER certificate; throws when there is none. */
export function readCertificates(bytes: Buffer, limit = MAX_DEPTH + 1): X509Certificate[] {
  const text = bytes.toString("latin1");
  if (!text.includes(BEGIN)) return [new X509Certificate(bytes)];
  const certificates: X509Certificate[] = [];
  for (let at = text.indexOf(BEGIN); at >= 0 && certificates.length < limit; at = text.indexOf(BEGIN, at + 1)) {
    const end = text.indexOf(END, at);
    if (end < 0) break;
    certificates.push(new X509Certificate(text.slice(at, end + END.length)));
  }
  if (certificates.length === 0) throw new Error("no certificate in the PEM");
  return certificates;
}

/** When the first certificate of `chain` stops being usable: the earliest notAfter of them all. */
export function validUntil(chain: readonly X509Certificate[]): number {
  return Math.min(...chain.map((cert) => Date.parse(cert.validTo)));
}

const inForce = (cert: X509Certificate, now: number) => Date.parse(cert.validFrom) <= now && now <= Date.parse(cert.validTo);

/**
 * Why `chain` (signer first) cannot be trusted at `now`, or null when it leads to one of `anchors`.
 * `verify` false (a lab): only the signer's dates count.
 */
export function chainProblem(
  chain: readonly X509Certificate[],
  anchors: readonly X509Certificate[],
  now: number,
  verify = true,
): ChainProblem | null {
  const signer = chain[0];
  if (!signer) return "untrusted_certificate";
  if (!inForce(signer, now)) return "expired_certificate";
  if (!verify) return null;
  let current = signer;
  const pool = chain.slice(1);
  for (let depth = 0; depth <= MAX_DEPTH; depth++) {
    if (anchors.some((anchor) => anchor.fingerprint256 === current.fingerprint256)) return null;
    const anchor = anchors.find((a) => issued(a, current));
    if (anchor) return inForce(anchor, now) ? null : "expired_certificate";
    const issuer = pool.find((candidate) => candidate !== current && issued(candidate, current));
    if (!issuer) return "untrusted_certificate";
    if (!inForce(issuer, now)) return "expired_certificate";
    current = issuer;
  }
  return "untrusted_certificate";
}

function issued(issuer: X509Certificate, subject: X509Certificate): boolean {
  return issuer.ca && subject.checkIssued(issuer) && subject.verify(issuer.publicKey);
}
