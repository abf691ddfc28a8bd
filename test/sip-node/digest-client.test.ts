import { describe, expect, it } from "vitest";
import { digestAuthorization, parseChallenge } from "../../sip-node/sip/digest-client.ts";

const field = (value: string, name: string) => new RegExp(`${name}="?([^",]+)"?`).exec(value)?.[1];

describe("answering a digest challenge", () => {
  it("reproduces RFC 2617 §3.5 (MD5, qop=auth) given its cnonce", () => {
    const challenge = parseChallenge(
      'Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"',
    )!;
    expect(challenge).toMatchObject({ realm: "testrealm@host.com", qop: "auth", algorithm: "MD5" });
    const value = digestAuthorization(
      challenge,
      { username: "Mufasa", password: "Circle Of Life" },
      "GET",
      "/dir/index.html",
      1,
      "0a4f113b",
    )!;
    expect(field(value, "response")).toBe("6629fae49393a05397450978507c4ef1");
    expect(field(value, "opaque")).toBe("5ccc069c403ebaf9f0171e9517f40e41");
    expect(field(value, "nc")).toBe("00000001");
  });

  it("answers the RFC 2069 form when the challenge has no qop", () => {
    const challenge = parseChallenge('Digest realm="sbc.test", nonce="abc123"')!;
    const value = digestAuthorization(challenge, { username: "u", password: "p" }, "INVITE", "sip:1@h")!;
    expect(value).not.toMatch(/qop=|cnonce=/);
    expect(field(value, "response")).toMatch(/^[0-9a-f]{32}$/);
  });

  it("declines a scheme or algorithm it does not know", () => {
    expect(parseChallenge('Basic realm="x"')).toBeNull();
    expect(
      digestAuthorization(
        parseChallenge('Digest realm="r", nonce="n", algorithm=SHA-1')!,
        { username: "u", password: "p" },
        "INVITE",
        "sip:x",
      ),
    ).toBeNull();
  });
});
