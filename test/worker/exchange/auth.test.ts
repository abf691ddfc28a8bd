// HTTP Digest (RFC 7616) on the exchange API: the RFC's vectors, the challenges, round trips with
// each algorithm, wrong keys, stale nonces, nonce-count replays, userhash, and the roles of keys.
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { sweepExchangeNonces } from "../../../worker/cron/exchange-nonces.ts";
import { loadConfig } from "../../../worker/env.ts";
import { digestResponse } from "../../../worker/exchange/digest/compute.ts";
import { userhashOf } from "../../../worker/services/exchange/hash.ts";
import { parseDigestCredentials } from "../../../worker/exchange/digest/header.ts";
import { advanceNonceCount, SWEEP_BATCH } from "../../../worker/services/exchange/nonce-counters.ts";
import { checkNonce, issueNonce } from "../../../worker/exchange/digest/nonce.ts";
import { database } from "../../../worker/lib/db.ts";
import {
  admin,
  authorization,
  buildRequest,
  challengeFor,
  challengesOf,
  digestRequest,
  exchangeAccount,
  PREFIX,
  rawRequest,
  rotateKey,
} from "../fixtures/exchange-client.ts";

const BALANCE = `${PREFIX}/buyers/balance`;

describe("RFC 7616 section 3.9.1 example", () => {
  const example = {
    username: "Mufasa",
    realm: "http-auth@example.org",
    password: "Circle of Life",
    method: "GET",
    uri: "/dir/index.html",
    nonce: "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
    nc: "00000001",
    cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ",
    qop: "auth" as const,
  };

  it("gives the RFC's MD5 response", async () => {
    expect(await digestResponse({ ...example, algorithm: "MD5" })).toBe("8ca523f5e9506fed4657c9700eebdbec");
  });

  it("gives the RFC's SHA-256 response", async () => {
    expect(await digestResponse({ ...example, algorithm: "SHA-256" })).toBe(
      "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1",
    );
  });

  it("parses the RFC's Authorization header", () => {
    const params = parseDigestCredentials(
      `Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", algorithm=SHA-256, ` +
        `nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", nc=00000001, cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", ` +
        `qop=auth, response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", ` +
        `opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`,
    );
    expect(params?.get("username")).toBe("Mufasa");
    expect(params?.get("algorithm")).toBe("SHA-256");
    expect(params?.get("nc")).toBe("00000001");
    expect(params?.get("opaque")).toBe("FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS");
    expect(parseDigestCredentials(`Digest username="a\\"b", realm="r"`)?.get("username")).toBe('a"b');
    expect(parseDigestCredentials(`Basic dXNlcjpwYXNz`)).toBeNull();
    expect(parseDigestCredentials(`Digest username="unterminated`)).toBeNull();
  });

  it("hashes a username as section 3.4.4 says", async () => {
    // H("Mufasa:http-auth@example.org") with SHA-256, as computed by the section's definition.
    const expected = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode("Mufasa:http-auth@example.org")))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    expect(await userhashOf("SHA-256", "Mufasa", "http-auth@example.org")).toBe(expected);
  });
});

describe("challenges", () => {
  it("answers an unauthenticated request with 401, two Digest challenges, SHA-256 first", async () => {
    const res = await rawRequest("POST", BALANCE);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: "error", message: "authentication required" });
    const challenges = challengesOf(res.headers);
    expect(challenges.map((c) => c.algorithm)).toEqual(["SHA-256", "MD5"]);
    for (const c of challenges) {
      expect(c).toMatchObject({ realm: "exchange", qop: "auth", userhash: "true" });
      expect(c.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(c.opaque).toBeTruthy();
      expect(c.stale).toBeUndefined();
    }
    // One nonce shared by both, so a client that merges the headers still answers correctly.
    expect(challenges[0]!.nonce).toBe(challenges[1]!.nonce);
  });

  it("refuses a Basic credential with the Digest challenges", async () => {
    const res = await rawRequest("POST", BALANCE, undefined, { authorization: `Basic ${btoa("user:key")}` });
    expect(res.status).toBe(401);
    expect(challengesOf(res.headers)).toHaveLength(2);
  });

  it("issues nonces that verify, and refuses a forged or altered one", async () => {
    const config = loadConfig(env);
    const nonce = await issueNonce(config);
    expect(await checkNonce(config, nonce)).toMatchObject({ valid: true, stale: false });
    const altered = (nonce[0] === "A" ? "B" : "A") + nonce.slice(1);
    expect(await checkNonce(config, altered)).toEqual({ valid: false });
    expect(await checkNonce(config, "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v")).toEqual({ valid: false });
    const old = await issueNonce(config, Math.floor(Date.now() / 1000) - config.EXCHANGE_NONCE_TTL_SEC - 5);
    expect(await checkNonce(config, old)).toMatchObject({ valid: true, stale: true });
  });
});

describe("Digest round trips", () => {
  it.each(["SHA-256", "MD5"] as const)("authenticates with %s and answers the balance", async (algorithm) => {
    const buyer = await exchangeAccount("buyer", 100, { digestMd5: algorithm === "MD5" });
    const res = await digestRequest(buyer, "POST", BALANCE, undefined, { algorithm });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ status: "success", i_account: buyer.iAccount, balance: 100, currency: "USD" });
  });

  it.each(["SHA-256", "MD5"] as const)("accepts userhash=true with %s", async (algorithm) => {
    const buyer = await exchangeAccount("buyer", 12.5, { digestMd5: algorithm === "MD5" });
    const res = await digestRequest(buyer, "POST", BALANCE, undefined, { algorithm, userhash: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.balance).toBe(12.5);
  });

  it("answers a wrong key with 401 and fresh challenges", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const res = await digestRequest(buyer, "POST", BALANCE, undefined, { key: "xb_not-the-key" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: "error", message: "invalid credentials" });
    const challenges = challengesOf(res.headers);
    expect(challenges.map((c) => c.algorithm)).toEqual(["SHA-256", "MD5"]);
    expect(challenges[0]!.stale).toBeUndefined();
  });

  it("answers an unknown username like a wrong key", async () => {
    const res = await digestRequest({ username: "nobody-here", apiKey: "xb_x" }, "POST", BALANCE);
    expect(res.status).toBe(401);
    expect(res.body.message).toBe("invalid credentials");
  });

  it("refuses a response signed for another uri, method or realm", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const challenge = await challengeFor("POST", BALANCE);
    const otherUri = await authorization(buyer, "POST", `${PREFIX}/buyers/other`, challenge);
    expect((await rawRequest("POST", BALANCE, undefined, { authorization: otherUri })).status).toBe(401);
    const otherMethod = await authorization(buyer, "GET", BALANCE, challenge);
    expect((await rawRequest("POST", BALANCE, undefined, { authorization: otherMethod })).status).toBe(401);
    const otherRealm = await authorization(buyer, "POST", BALANCE, { ...challenge, realm: "elsewhere" });
    expect((await rawRequest("POST", BALANCE, undefined, { authorization: otherRealm })).status).toBe(401);
    const good = await authorization(buyer, "POST", BALANCE, challenge);
    expect((await rawRequest("POST", BALANCE, undefined, { authorization: good })).status).toBe(200);
  });

  it("refuses a request without qop=auth (RFC 2069 style)", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const challenge = await challengeFor("POST", BALANCE);
    const auth = (await authorization(buyer, "POST", BALANCE, challenge)).replace(/, qop=auth/, "");
    const res = await rawRequest("POST", BALANCE, undefined, { authorization: auth });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/qop=auth/);
  });
});

describe("nonces", () => {
  it("answers a correct response with an expired nonce 401 stale=true", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const config = loadConfig(env);
    const challenge = await challengeFor("POST", BALANCE);
    const expired = await issueNonce(config, Math.floor(Date.now() / 1000) - config.EXCHANGE_NONCE_TTL_SEC - 1);
    const auth = await authorization(buyer, "POST", BALANCE, { ...challenge, nonce: expired });
    const res = await rawRequest("POST", BALANCE, undefined, { authorization: auth });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe("nonce expired");
    const challenges = challengesOf(res.headers);
    expect(challenges.map((c) => c.stale)).toEqual(["true", "true"]);
    // The client retries with the fresh nonce, without asking for the key again.
    const retry = await authorization(buyer, "POST", BALANCE, challenges[0]!);
    expect((await rawRequest("POST", BALANCE, undefined, { authorization: retry })).status).toBe(200);
  });

  it("does not say stale when the key is wrong", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const config = loadConfig(env);
    const challenge = await challengeFor("POST", BALANCE);
    const expired = await issueNonce(config, Math.floor(Date.now() / 1000) - config.EXCHANGE_NONCE_TTL_SEC - 1);
    const auth = await authorization(buyer, "POST", BALANCE, { ...challenge, nonce: expired }, { key: "wrong" });
    const res = await rawRequest("POST", BALANCE, undefined, { authorization: auth });
    expect(res.status).toBe(401);
    expect(challengesOf(res.headers)[0]!.stale).toBeUndefined();
  });

  it("refuses a replayed nonce count, and accepts increasing ones on the same nonce", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const challenge = await challengeFor("POST", BALANCE);
    const first = await authorization(buyer, "POST", BALANCE, challenge, { nc: 1 });
    expect((await rawRequest("POST", BALANCE, undefined, { authorization: first })).status).toBe(200);
    const replay = await rawRequest("POST", BALANCE, undefined, { authorization: first });
    expect(replay.status).toBe(401);
    expect(replay.body.message).toBe("nonce count already used");
    expect(challengesOf(replay.headers)[0]!.stale).toBe("true");
    const second = await authorization(buyer, "POST", BALANCE, challenge, { nc: 2 });
    expect((await rawRequest("POST", BALANCE, undefined, { authorization: second })).status).toBe(200);
    const lower = await authorization(buyer, "POST", BALANCE, challenge, { nc: 2, cnonce: "another" });
    expect((await rawRequest("POST", BALANCE, undefined, { authorization: lower })).status).toBe(401);
    const skip = await authorization(buyer, "POST", BALANCE, challenge, { nc: 7 });
    expect((await rawRequest("POST", BALANCE, undefined, { authorization: skip })).status).toBe(200);
  });

  it("lets exactly one of many concurrent requests with the same nonce count through", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const challenge = await challengeFor("POST", BALANCE);
    const auth = await authorization(buyer, "POST", BALANCE, challenge, { nc: 1 });
    const replies = await Promise.all(Array.from({ length: 10 }, () => rawRequest("POST", BALANCE, undefined, { authorization: auth })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 401)).toHaveLength(9);
  });
});

describe("nonce counters", () => {
  it("keep the highest count per nonce and are swept by the cron once their nonce has expired", async () => {
    const db = database(env.DB);
    const past = new Date(Date.now() - 60_000).toISOString();
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(await advanceNonceCount(db, "sweep-old", 1, past)).toBe(true);
    expect(await advanceNonceCount(db, "sweep-new", 3, future)).toBe(true);
    expect(await advanceNonceCount(db, "sweep-new", 3, future)).toBe(false);
    expect(await advanceNonceCount(db, "sweep-new", 2, future)).toBe(false);
    await sweepExchangeNonces({ db }, new Date());
    const left = await env.DB.prepare("SELECT nonce, last_nc FROM digest_nonce_counters WHERE nonce LIKE 'sweep-%'").all();
    expect(left.results).toEqual([{ nonce: "sweep-new", last_nc: 3 }]);
  });

  it("are swept in batches until none of the expired is left", async () => {
    const expired = 2 * SWEEP_BATCH + 7;
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
       INSERT INTO digest_nonce_counters (nonce, last_nc, expires_at) SELECT 'batch-' || i, 1, ?2 FROM n`,
    )
      .bind(expired, new Date(Date.now() - 1000).toISOString())
      .run();
    await sweepExchangeNonces({ db: database(env.DB) }, new Date());
    const left = await env.DB.prepare("SELECT count(*) AS n FROM digest_nonce_counters WHERE nonce LIKE 'batch-%'").first<{ n: number }>();
    expect(left!.n).toBe(0);
  });

  it("are no longer swept on the request path", async () => {
    await env.DB.prepare("INSERT INTO digest_nonce_counters (nonce, last_nc, expires_at) VALUES ('path-old', 1, ?1)")
      .bind(new Date(Date.now() - 60_000).toISOString())
      .run();
    const buyer = await exchangeAccount("buyer", 1);
    const random = Math.random;
    Math.random = () => 0;
    try {
      for (let i = 0; i < 3; i++) expect((await digestRequest(buyer, "POST", BALANCE)).status).toBe(200);
    } finally {
      Math.random = random;
    }
    const left = await env.DB.prepare("SELECT nonce FROM digest_nonce_counters WHERE nonce = 'path-old'").all();
    expect(left.results).toEqual([{ nonce: "path-old" }]);
  });
});

describe("keys and roles", () => {
  it("takes the buyer key on buyer endpoints, not the seller key", async () => {
    const seller = await exchangeAccount("seller", 5);
    const withSellerKey = await digestRequest(seller, "POST", BALANCE);
    expect(withSellerKey.status).toBe(401);
    const buyerKey = await rotateKey(seller, "buyer");
    expect(buyerKey).not.toBe(seller.apiKey);
    const withBuyerKey = await digestRequest({ ...seller, apiKey: buyerKey }, "POST", BALANCE);
    expect(withBuyerKey.status, JSON.stringify(withBuyerKey.body)).toBe(200);
    expect(withBuyerKey.body.balance).toBe(5);
  });

  it("stops the old key at once when a key is rotated", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const fresh = await rotateKey(buyer, "buyer");
    expect((await digestRequest(buyer, "POST", BALANCE)).status).toBe(401);
    expect((await digestRequest({ ...buyer, apiKey: fresh }, "POST", BALANCE)).status).toBe(200);
  });

  it("gives a buyer account no seller key", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const { admin } = await import("../fixtures/exchange-client.ts");
    const res = await admin(`/accounts/${buyer.iAccount}/keys`, { role: "seller" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: "error", message: "role: a buyer account holds no seller key" });
  });

  it("keeps keys encrypted at rest, bound to their account and role", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const row = await env.DB.prepare("SELECT buyer_key_enc, seller_key_enc FROM exchange_accounts WHERE i_account = ?")
      .bind(buyer.iAccount)
      .first<{ buyer_key_enc: string; seller_key_enc: string | null }>();
    expect(row!.buyer_key_enc).toMatch(/^v1\./);
    expect(row!.buyer_key_enc).not.toContain(buyer.apiKey);
    expect(row!.seller_key_enc).toBeNull();
  });

  it("refuses a suspended account with 403", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    await env.DB.prepare("UPDATE exchange_accounts SET status = 'suspended' WHERE i_account = ?").bind(buyer.iAccount).run();
    const res = await digestRequest(buyer, "POST", BALANCE);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ status: "error", message: "account suspended" });
  });
});

describe("the request form", () => {
  it("builds requests like a client", () => {
    expect(buildRequest("GET", "/x", { a: "1 2" }).uri).toBe("/x?a=1+2");
  });
});

describe("Digest hardening (issue 20, finding 13)", () => {
  it("accepts MD5 only from an account that opted in; SHA-256 from everyone", async () => {
    const buyer = await exchangeAccount("buyer", 3);
    const md5 = await digestRequest(buyer, "POST", BALANCE, undefined, { algorithm: "MD5" });
    expect(md5.status).toBe(401);
    expect(md5.body.message).toBe("MD5 is not enabled for this account: answer the SHA-256 challenge");
    expect((await digestRequest(buyer, "POST", BALANCE)).status).toBe(200);
    const enabled = await admin(`/accounts/${buyer.iAccount}/digest-md5`, { enabled: "1" });
    expect(enabled.body).toEqual({ status: "success", i_account: buyer.iAccount, digest_md5: true });
    expect((await digestRequest(buyer, "POST", BALANCE, undefined, { algorithm: "MD5" })).status).toBe(200);
  });

  it("names no algorithm in the MD5 challenge, so a client reading both as one field answers SHA-256", async () => {
    const res = await rawRequest("POST", BALANCE);
    const header = res.headers.get("www-authenticate") ?? "";
    expect(header.match(/algorithm=/g)).toEqual(["algorithm="]);
    expect(header).toMatch(/algorithm=SHA-256/);
  });

  it("spends no rate limit on a replayed header", async () => {
    const buyer = await exchangeAccount("buyer", 1, { perSecondCap: 3 });
    const challenge = await challengeFor("POST", BALANCE);
    const auth = await authorization(buyer, "POST", BALANCE, challenge, { nc: 1 });
    expect((await rawRequest("POST", BALANCE, undefined, { authorization: auth })).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      expect((await rawRequest("POST", BALANCE, undefined, { authorization: auth })).body.message).toBe("nonce count already used");
    }
    // The owner's own requests in the same second still have the cap's two left.
    const mine = [];
    for (let nc = 2; nc <= 3; nc++) {
      const fresh = await authorization(buyer, "POST", BALANCE, challenge, { nc });
      mine.push((await rawRequest("POST", BALANCE, undefined, { authorization: fresh })).status);
    }
    expect(mine).toEqual([200, 200]);
  });

  it("signs nonces with a key derived from the secret, not the secret itself", async () => {
    const config = { ...loadConfig(env), EXCHANGE_NONCE_SECRET: undefined };
    const nonce = await issueNonce(config);
    const bytes = Uint8Array.from(atob(nonce.replace(/-/g, "+").replace(/_/g, "/") + "="), (ch) => ch.charCodeAt(0));
    const raw = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(config.JWT_SECRET),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const label = new TextEncoder().encode(`exchange-digest:nonce:${config.EXCHANGE_DIGEST_REALM}:`);
    const withRawSecret = new Uint8Array(
      await crypto.subtle.sign("HMAC", raw, new Uint8Array([...label, ...bytes.subarray(0, 16)])),
    ).subarray(0, 16);
    expect(bytes.subarray(16)).not.toEqual(withRawSecret);
    expect(await checkNonce(config, nonce)).toMatchObject({ valid: true });
  });

  it("costs an unknown username what a wrong key costs: one key decrypted and answered", async () => {
    const buyer = await exchangeAccount("buyer", 1);
    const decrypts = async (username: string) => {
      const challenge = await challengeFor("POST", BALANCE);
      const auth = await authorization({ username, apiKey: "xb_wrong" }, "POST", BALANCE, challenge);
      const decrypt = crypto.subtle.decrypt.bind(crypto.subtle);
      let count = 0;
      const spy = vi.spyOn(crypto.subtle, "decrypt").mockImplementation((...args) => {
        count++;
        return decrypt(...args);
      });
      try {
        expect((await rawRequest("POST", BALANCE, undefined, { authorization: auth })).body.message).toBe("invalid credentials");
      } finally {
        spy.mockRestore();
      }
      return count;
    };
    const known = await decrypts(buyer.username);
    expect(known).toBe(1);
    expect(await decrypts(`nobody-${crypto.randomUUID()}`)).toBe(known);
  });
});
