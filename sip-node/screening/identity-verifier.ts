// The caller ID's attestation as the node reads it from a caller's INVITE (STIR/SHAKEN: RFC 8224,
// 8225, 8588; ATIS-1000074), for the admission request: the PASSporT of the Identity header with
// its claims, checked in order of cost (shape, iat's freshness, orig.tn against the caller ID,
// then the signer's certificate, fetched through the address policy and cached, and the ES256
// signature with jose), and the verstat an upstream carrier left on P-Asserted-Identity or From.
// It never throws and never refuses a call: what it found goes to the Worker as IdentityFacts.
import { compactVerify } from "jose";
import type { IdentityFacts } from "../../schema/screening.ts";
import { header } from "../sip/headers.ts";
import type { SipRequest } from "../sip/message.ts";
import { parseNameAddr, parseUri } from "../sip/parser.ts";
import type { AddressPolicy } from "../sip/address-policy.ts";
import { chainProblem, readCertificates, validUntil } from "./certificate-chain.ts";
import { identityValues, type IdentityValue } from "./identity-header.ts";
import { decodePassport, type Passport, type PassportProblem } from "./passport.ts";
import { FAILURE_TTL_MS, SignerCache, type Loaded, type Signer } from "./signer-cache.ts";
import { callerIdOf, verstatOf } from "./verstat.ts";
import { fetchX5u, X5uError, x5uTarget } from "./x5u-fetch.ts";

/** What a call needs of it (tests give a stand-in). */
export type IdentityReader = { read(invite: SipRequest, ani: string | null): Promise<IdentityFacts> };

export type IdentityVerifierOptions = {
  /** The trust anchors' PEM bundle (STIR_TRUST_ANCHORS_FILE); null: none. */
  trustAnchors: string | null;
  /** false (a lab): the chain is not checked, only the signer's dates and the signature. */
  verifyChain: boolean;
  iatMaxAgeSeconds: number;
  /** Where the node may send anything: the x5u fetch goes nowhere else. */
  policy: Pick<AddressPolicy, "allows">;
  now?: () => number;
  log?: (message: string) => void;
};

type Reason = NonNullable<IdentityFacts["reason"]>;

export class IdentityVerifier implements IdentityReader {
  private readonly options: IdentityVerifierOptions;
  private readonly anchors;
  private readonly now: () => number;
  readonly signers: SignerCache;

  constructor(options: IdentityVerifierOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.anchors = options.trustAnchors ? readCertificates(Buffer.from(options.trustAnchors), 10_000) : [];
    this.signers = new SignerCache(this.now);
  }

  async read(invite: SipRequest, ani: string | null): Promise<IdentityFacts> {
    const verstat = verstatOf(invite);
    const values = identityValues(invite);
    if (values.length === 0) return { ...nothing(), status: "absent", verstat };
    const found = shakenPassport(values);
    if ("reason" in found) return { ...nothing(), status: "failed", reason: found.reason, verstat };
    const { passport, token } = found;
    const facts: IdentityFacts = {
      status: "verified",
      reason: null,
      attestation: passport.attestation,
      orig_tn: passport.origTn,
      dest_tn: passport.destTn,
      iat: passport.iat,
      origid: passport.origid,
      x5u: passport.x5u,
      verstat,
    };
    // A withheld caller ID (From anonymous) is compared with P-Asserted-Identity's number.
    const callerId = /\d/.test(ani ?? "") ? ani : assertedUser(invite);
    const reason = await this.problem(passport, token, callerId).catch((err: unknown) => {
      this.options.log?.(`identity: ${String(err)}`);
      return "malformed" as const;
    });
    return reason ? { ...facts, status: "failed", reason } : facts;
  }

  private async problem(passport: Passport, token: string, callerId: string | null): Promise<Reason | null> {
    if (Math.abs(this.now() / 1000 - passport.iat) > this.options.iatMaxAgeSeconds) return "stale_iat";
    if (!sameNumber(passport.origTn, callerId)) return "orig_mismatch";
    // No anchor configured: nothing could be trusted, so nothing is fetched.
    if (this.options.verifyChain && this.anchors.length === 0) return "untrusted_certificate";
    const signer = await this.signers.get(passport.x5u, () => this.load(passport.x5u));
    if ("failure" in signer) return signer.failure;
    try {
      await compactVerify(token, signer.key, { algorithms: ["ES256"] });
      return null;
    } catch {
      return "bad_signature";
    }
  }

  /** Fetches and reads the certificate `x5u` names, for the cache. */
  private async load(x5u: string): Promise<Loaded> {
    const now = this.now();
    const failed = (failure: Extract<Signer, { failure: unknown }>["failure"]): Loaded => ({
      signer: { failure },
      expiresAt: now + FAILURE_TTL_MS,
    });
    let body;
    try {
      body = await fetchX5u(await x5uTarget(x5u, this.options.policy));
    } catch (err) {
      if (!(err instanceof X5uError)) throw err;
      this.options.log?.(`identity: x5u ${x5u}: ${err.message}`);
      return failed(err.reason);
    }
    let chain;
    try {
      chain = readCertificates(body.bytes);
    } catch {
      return failed("untrusted_certificate");
    }
    const problem = chainProblem(chain, this.anchors, now, this.options.verifyChain);
    if (problem) return failed(problem);
    const until = validUntil(chain);
    const expiresAt = body.maxAgeSeconds === null ? until : Math.min(until, now + body.maxAgeSeconds * 1000);
    return { signer: { key: chain[0]!.publicKey }, expiresAt };
  }
}

const nothing = () => ({ reason: null, attestation: null, orig_tn: null, dest_tn: [], iat: null, origid: null, x5u: null });

/** The first SHAKEN PASSporT among the values, or why there is none (a value of another ppt is passed over). */
function shakenPassport(values: IdentityValue[]): { passport: Passport; token: string } | PassportProblem {
  let problem: PassportProblem | null = null;
  for (const value of values) {
    if (value.ppt !== null && value.ppt !== "shaken") {
      problem ??= { reason: "unsupported_ppt" };
      continue;
    }
    const decoded = decodePassport(value.token);
    if (!("reason" in decoded)) return { passport: decoded, token: value.token };
    if (problem === null || decoded.reason === "malformed") problem = decoded;
  }
  return problem ?? { reason: "malformed" };
}

/** P-Asserted-Identity's number, for a caller whose From carries none (a withheld caller ID). */
function assertedUser(invite: SipRequest): string | null {
  const value = header(invite, "P-Asserted-Identity");
  try {
    return value ? callerIdOf(parseUri(parseNameAddr(value).uri).user) : null;
  } catch {
    return null;
  }
}

/**
 * Whether orig.tn is the caller ID: the same digits, or the same NANP number with and without its
 * leading 1 (carriers there send ten digits in From while a PASSporT holds eleven).
 */
export function sameNumber(origTn: string, callerId: string | null): boolean {
  const a = origTn.replace(/\D/g, "");
  const b = (callerId ?? "").replace(/\D/g, "");
  if (a === "" || b === "") return false;
  return a === b || (a.length === 11 && a === `1${b}`) || (b.length === 11 && b === `1${a}`);
}
