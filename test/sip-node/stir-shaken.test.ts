// STIR/SHAKEN on the node (issue 32): the Identity header's PASSporT read and verified against
// the certificate its x5u names, served by a local HTTP server and signed under a test STI-CA
// made with openssl; the x5u fetched only where the node may send anything; the upstream
// carrier's verstat; the Reason header of a refusal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IdentityFacts } from "../../schema/screening.ts";
import { IdentityVerifier, sameNumber, type IdentityVerifierOptions } from "../../sip-node/screening/identity-verifier.ts";
import { identityValues } from "../../sip-node/screening/identity-header.ts";
import { reasonHeader } from "../../sip-node/screening/reason-header.ts";
import { AddressPolicy } from "../../sip-node/sip/address-policy.ts";
import type { SipRequest } from "../../sip-node/sip/message.ts";
import { parseMessage } from "../../sip-node/sip/parser.ts";
import { identityHeader, makePki, passport, startX5uServer } from "./stir-shaken-pki.ts";

let pki: ReturnType<typeof makePki>;
let x5uServer: Awaited<ReturnType<typeof startX5uServer>>;
/** The signer's certificate with its intermediate, as a SHAKEN x5u serves it. */
let x5u: string;

beforeAll(async () => {
  pki = makePki();
  x5uServer = await startX5uServer();
  x5u = x5uServer.serve("/sp/shaken-1234.pem", pki.signer.cert + pki.intermediate.cert);
});

afterAll(() => x5uServer?.close());

/** A node listening on loopback (the tests'), trusting the test STI-CA. */
const verifier = (options: Partial<IdentityVerifierOptions> = {}) =>
  new IdentityVerifier({
    trustAnchors: pki.root.cert,
    verifyChain: true,
    iatMaxAgeSeconds: 60,
    policy: new AddressPolicy([], "127.0.0.1"),
    ...options,
  });

/** An INVITE with these extra headers (From from +14155550100 unless given). */
function invite(extra: string[] = [], from = "<sip:+14155550100@198.51.100.7>;tag=a1"): SipRequest {
  const text = [
    "INVITE sip:14155550123@127.0.0.1 SIP/2.0",
    "Via: SIP/2.0/UDP 198.51.100.7:5060;branch=z9hG4bK-stir",
    "Max-Forwards: 70",
    `From: ${from}`,
    "To: <sip:14155550123@127.0.0.1>",
    "Call-ID: stir-shaken-test",
    "CSeq: 1 INVITE",
    "Contact: <sip:caller@198.51.100.7>",
    ...extra,
    "Content-Length: 0",
    "",
    "",
  ].join("\r\n");
  return parseMessage(new TextEncoder().encode(text)) as SipRequest;
}

const withIdentity = (token: string, url = x5u, extra: string[] = []) => invite([`Identity: ${identityHeader(token, url)}`, ...extra]);

const ANI = "+14155550100";

describe("a PASSporT verified", () => {
  it("attestation A signed by a certificate chaining to the trust anchor: verified, with its claims; the certificate fetched once", async () => {
    const v = verifier();
    const iat = Math.floor(Date.now() / 1000) - 5;
    const token = await passport(pki.signer.key, x5u, { iat, origid: "0f5b0e4e-1d2c-4c1e-9a53-7f4e5b1a2c3d" });
    const before = x5uServer.hits.length;
    const facts = await v.read(withIdentity(token), ANI);
    expect(facts).toEqual<IdentityFacts>({
      status: "verified",
      reason: null,
      attestation: "A",
      orig_tn: "14155550100",
      dest_tn: ["14155550123"],
      iat,
      origid: "0f5b0e4e-1d2c-4c1e-9a53-7f4e5b1a2c3d",
      x5u,
      verstat: null,
    });
    // The next calls from the same signer cost no request: the certificate is cached.
    for (const attest of ["B", "C"]) {
      const next = await v.read(withIdentity(await passport(pki.signer.key, x5u, { attest })), "14155550100");
      expect(next).toMatchObject({ status: "verified", attestation: attest });
    }
    expect(x5uServer.hits.length - before).toBe(1);
  });

  it("a signer certified by the STI-CA itself (no intermediate) verifies, and a ten-digit NANP caller ID matches orig.tn", async () => {
    const url = x5uServer.serve("/sp/direct.pem", pki.direct.cert);
    const facts = await verifier().read(withIdentity(await passport(pki.direct.key, url)), "4155550100");
    expect(facts).toMatchObject({ status: "verified", attestation: "A" });
  });

  it("calls arriving together while the certificate is fetched share one fetch", async () => {
    const url = x5uServer.serve("/sp/together.pem", pki.signer.cert + pki.intermediate.cert);
    const v = verifier();
    const before = x5uServer.hits.length;
    const tokens = await Promise.all([1, 2, 3, 4, 5].map(() => passport(pki.signer.key, url)));
    const all = await Promise.all(tokens.map((token) => v.read(withIdentity(token, url), ANI)));
    expect(all.map((f) => f.status)).toEqual(["verified", "verified", "verified", "verified", "verified"]);
    expect(x5uServer.hits.length - before).toBe(1);
  });

  it("the certificate is fetched again once the x5u's Cache-Control max-age has passed", async () => {
    const url = x5uServer.serve("/sp/short-lived.pem", pki.signer.cert + pki.intermediate.cert, { "cache-control": "max-age=30" });
    let now = Date.now();
    const v = verifier({ now: () => now });
    const before = x5uServer.hits.length;
    const read = async () => v.read(withIdentity(await passport(pki.signer.key, url, { iat: Math.floor(now / 1000) }), url), ANI);
    expect((await read()).status).toBe("verified");
    now += 20_000;
    expect((await read()).status).toBe("verified");
    expect(x5uServer.hits.length - before).toBe(1);
    now += 15_000;
    expect((await read()).status).toBe("verified");
    expect(x5uServer.hits.length - before).toBe(2);
  });
});

describe("a PASSporT that fails", () => {
  it("tampered (its payload changed after signing): failed bad_signature, the claims as read", async () => {
    const token = await passport(pki.signer.key, x5u, { attest: "C" });
    const [head, , signature] = token.split(".");
    const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString());
    const forged = `${head}.${Buffer.from(JSON.stringify({ ...claims, attest: "A" })).toString("base64url")}.${signature}`;
    const facts = await verifier().read(withIdentity(forged), ANI);
    expect(facts).toMatchObject({ status: "failed", reason: "bad_signature", attestation: "A", orig_tn: "14155550100" });
  });

  it("signed by another key than the x5u certificate's: failed bad_signature", async () => {
    const facts = await verifier().read(withIdentity(await passport(pki.direct.key, x5u)), ANI);
    expect(facts).toMatchObject({ status: "failed", reason: "bad_signature" });
  });

  it("an iat older than STIR_IAT_MAX_AGE_SECONDS (or as far in the future): failed stale_iat", async () => {
    const now = Math.floor(Date.now() / 1000);
    const old = await verifier().read(withIdentity(await passport(pki.signer.key, x5u, { iat: now - 61 })), ANI);
    expect(old).toMatchObject({ status: "failed", reason: "stale_iat", iat: now - 61, attestation: "A" });
    const future = await verifier().read(withIdentity(await passport(pki.signer.key, x5u, { iat: now + 120 })), ANI);
    expect(future).toMatchObject({ status: "failed", reason: "stale_iat" });
    // A node allowing 300 s takes the one 61 s old.
    const lenient = await verifier({ iatMaxAgeSeconds: 300 }).read(
      withIdentity(await passport(pki.signer.key, x5u, { iat: now - 61 })),
      ANI,
    );
    expect(lenient.status).toBe("verified");
  });

  it("an x5u at a private address, over plain http elsewhere than loopback, or not http(s): failed x5u_refused, nothing fetched", async () => {
    for (const url of [
      "http://10.0.0.1/cert.pem",
      "https://10.0.0.1/cert.pem",
      "https://169.254.169.254/latest/meta-data",
      "https://[fd00::1]/c.pem",
      "ftp://cert.example/c.pem",
    ]) {
      const facts = await verifier().read(withIdentity(await passport(pki.signer.key, url), url), ANI);
      expect(facts, url).toMatchObject({ status: "failed", reason: "x5u_refused", x5u: url });
    }
    // An operator's own range (SIP_ALLOWED_PRIVATE_RANGES) may be reached, but over https only.
    const allowed = verifier({ policy: new AddressPolicy(["10.0.0.0/8"], "127.0.0.1") });
    const plain = await allowed.read(
      withIdentity(await passport(pki.signer.key, "http://10.0.0.1/cert.pem"), "http://10.0.0.1/cert.pem"),
      ANI,
    );
    expect(plain).toMatchObject({ status: "failed", reason: "x5u_refused" });
    // A node that does not listen on loopback may not fetch from loopback: the server sees no request.
    const before = x5uServer.hits.length;
    const publicNode = verifier({ policy: new AddressPolicy([], "203.0.113.5") });
    const facts = await publicNode.read(withIdentity(await passport(pki.signer.key, x5u)), ANI);
    expect(facts).toMatchObject({ status: "failed", reason: "x5u_refused" });
    expect(x5uServer.hits.length).toBe(before);
  });

  it("an x5u answering 404: failed x5u_unreachable", async () => {
    const url = `${x5uServer.base}/sp/missing.pem`;
    const facts = await verifier().read(withIdentity(await passport(pki.signer.key, url), url), ANI);
    expect(facts).toMatchObject({ status: "failed", reason: "x5u_unreachable" });
  });

  it("a certificate that does not chain to the trust anchors: failed untrusted_certificate; without STIR_VERIFY_CHAIN the signature alone verifies it", async () => {
    const url = x5uServer.serve("/sp/stranger.pem", pki.strangerSigner.cert);
    const token = await passport(pki.strangerSigner.key, url);
    expect(await verifier().read(withIdentity(token, url), ANI)).toMatchObject({ status: "failed", reason: "untrusted_certificate" });
    // The stranger's chain served whole (its root too) is no better.
    const whole = x5uServer.serve("/sp/stranger-whole.pem", pki.strangerSigner.cert + pki.stranger.cert);
    const token2 = await passport(pki.strangerSigner.key, whole);
    expect(await verifier().read(withIdentity(token2, whole), ANI)).toMatchObject({ status: "failed", reason: "untrusted_certificate" });
    // An intermediate missing from the x5u breaks the chain too.
    const bare = x5uServer.serve("/sp/no-intermediate.pem", pki.signer.cert);
    expect(await verifier().read(withIdentity(await passport(pki.signer.key, bare), bare), ANI)).toMatchObject({
      reason: "untrusted_certificate",
    });
    expect(await verifier({ verifyChain: false }).read(withIdentity(token, url), ANI)).toMatchObject({ status: "verified" });
  });

  it("no trust anchor configured: failed untrusted_certificate without fetching anything", async () => {
    const before = x5uServer.hits.length;
    const facts = await verifier({ trustAnchors: null }).read(withIdentity(await passport(pki.signer.key, x5u)), ANI);
    expect(facts).toMatchObject({ status: "failed", reason: "untrusted_certificate", attestation: "A" });
    expect(x5uServer.hits.length).toBe(before);
  });

  it("a certificate past its notAfter: failed expired_certificate", async () => {
    const later = Date.now() + 3 * 86_400_000;
    const url = x5uServer.serve("/sp/expired.pem", pki.signer.cert + pki.intermediate.cert);
    const token = await passport(pki.signer.key, url, { iat: Math.floor(later / 1000) });
    const facts = await verifier({ now: () => later }).read(withIdentity(token, url), ANI);
    expect(facts).toMatchObject({ status: "failed", reason: "expired_certificate" });
  });

  it("orig.tn other than the caller ID: failed orig_mismatch; a withheld caller ID is compared with P-Asserted-Identity", async () => {
    const token = await passport(pki.signer.key, x5u, { orig: { tn: "14155550199" } });
    expect(await verifier().read(withIdentity(token), ANI)).toMatchObject({
      status: "failed",
      reason: "orig_mismatch",
      orig_tn: "14155550199",
    });
    const anonymous = invite(
      [
        `Identity: ${identityHeader(await passport(pki.signer.key, x5u), x5u)}`,
        "P-Asserted-Identity: <sip:+14155550100@carrier.example>",
        "Privacy: id",
      ],
      "<sip:anonymous@anonymous.invalid>;tag=a2",
    );
    expect(await verifier().read(anonymous, "anonymous")).toMatchObject({ status: "verified" });
  });

  it("not a PASSporT (not a JWS, no claims, another alg): failed malformed; a ppt other than shaken: failed unsupported_ppt", async () => {
    const v = verifier();
    for (const token of ["not-a-jws", "a.b", `${Buffer.from("{}").toString("base64url")}.e30.c2ln`]) {
      expect(await v.read(withIdentity(token), ANI), token).toMatchObject({ status: "failed", reason: "malformed", attestation: null });
    }
    const noOrig = await passport(pki.signer.key, x5u, { orig: {} });
    expect(await v.read(withIdentity(noOrig), ANI)).toMatchObject({ reason: "malformed" });
    const wrongAttest = await passport(pki.signer.key, x5u, { attest: "D" });
    expect(await v.read(withIdentity(wrongAttest), ANI)).toMatchObject({ reason: "malformed" });
    const div = await passport(pki.signer.key, x5u, {}, { ppt: "div" });
    expect(await v.read(invite([`Identity: ${identityHeader(div, x5u, "div")}`]), ANI)).toMatchObject({
      status: "failed",
      reason: "unsupported_ppt",
    });
    // A div PASSporT beside a SHAKEN one: the SHAKEN one is read.
    const shaken = await passport(pki.signer.key, x5u);
    const both = invite([`Identity: ${identityHeader(div, x5u, "div")}`, `Identity: ${identityHeader(shaken, x5u)}`]);
    expect(await v.read(both, ANI)).toMatchObject({ status: "verified" });
  });
});

describe("no PASSporT, and the upstream verstat", () => {
  it("no Identity header: absent", async () => {
    expect(await verifier().read(invite(), ANI)).toEqual<IdentityFacts>({
      status: "absent",
      reason: null,
      attestation: null,
      orig_tn: null,
      dest_tn: [],
      iat: null,
      origid: null,
      x5u: null,
      verstat: null,
    });
  });

  it("verstat in From's user part, and as a P-Asserted-Identity URI parameter (which wins); with or without a PASSporT", async () => {
    const fromUser = invite([], "<sip:+14155550100;verstat=TN-Validation-Passed@carrier.example;user=phone>;tag=v1");
    expect(await verifier().read(fromUser, ANI)).toMatchObject({ status: "absent", verstat: "TN-Validation-Passed" });
    const pai = invite(
      ["P-Asserted-Identity: <sip:+14155550100@carrier.example;user=phone;verstat=TN-Validation-Failed>"],
      "<sip:+14155550100;verstat=TN-Validation-Passed@carrier.example>;tag=v2",
    );
    expect(await verifier().read(pai, ANI)).toMatchObject({ verstat: "TN-Validation-Failed" });
    const tel = invite(["P-Asserted-Identity: <tel:+14155550100;verstat=no-tn-validation>"]);
    expect(await verifier().read(tel, ANI)).toMatchObject({ verstat: "No-TN-Validation" });
    const unknown = invite(["P-Asserted-Identity: <sip:+14155550100;verstat=Maybe@carrier.example>"]);
    expect(await verifier().read(unknown, ANI)).toMatchObject({ verstat: null });
    const signed = withIdentity(await passport(pki.signer.key, x5u), x5u, [
      "P-Asserted-Identity: <sip:+14155550100;verstat=TN-Validation-Passed@carrier.example>",
    ]);
    expect(await verifier().read(signed, ANI)).toMatchObject({ status: "verified", verstat: "TN-Validation-Passed" });
  });
});

describe("reading the Identity header", () => {
  it("takes its parameters, several values in one header, and long adversarial input in linear time", () => {
    const values = identityValues(
      invite(['Identity: aaa.bbb.ccc;info=<https://cert.example/a;b,c.pem>;alg=ES256;ppt="shaken", ddd.eee.fff;ppt=div']),
    );
    expect(values).toEqual([
      { token: "aaa.bbb.ccc", info: "https://cert.example/a;b,c.pem", ppt: "shaken" },
      { token: "ddd.eee.fff", info: null, ppt: "div" },
    ]);
    const hostile = `x${';a="\\"'.repeat(1_300)}`;
    const started = performance.now();
    identityValues(invite([`Identity: ${hostile}`]));
    expect(performance.now() - started).toBeLessThan(50);
  });

  it("compares orig.tn with the caller ID by its digits", () => {
    expect(sameNumber("14155550100", "+1 415 555 0100")).toBe(true);
    expect(sameNumber("14155550100", "4155550100")).toBe(true);
    expect(sameNumber("+442071234567", "442071234567")).toBe(true);
    expect(sameNumber("14155550100", "4155550101")).toBe(false);
    expect(sameNumber("14155550100", null)).toBe(false);
  });
});

describe("the Reason header of a refusal", () => {
  it("names the cause and the Worker's reason as a safe quoted-string", () => {
    expect(reasonHeader(603, "screening:calls_per_minute")).toBe('SIP;cause=603;text="screening:calls_per_minute"');
    expect(reasonHeader(403, 'a "quoted"\\ reason\r\nInjected: yes')).toBe('SIP;cause=403;text="a \\"quoted\\"\\\\ reason Injected: yes"');
  });
});
