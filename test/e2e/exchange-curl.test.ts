// The exchange API driven by the real curl binary with `curl --digest`, against `wrangler dev`
// as `npm start` runs it (local D1, Durable Objects), on a free port and a fresh state folder:
// accounts made with `npm run exchange`, a seller publishing, then the buyer's whole eSIM flow
// (countries → market → purchase → list → orders → top-up list → top-up purchase → balance), a
// wrong key answered 401 with a Digest challenge, a legacy v1 call signed as the spec says, and the
// demo market published twice with `npm run exchange -- seed-market` (nothing duplicated).
import { execFile, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDev } from "../../scripts/lib/wrangler-dev.mjs";
import { freeTcpPort } from "../../scripts/lib/ports.mjs";
import { curl } from "./curl.ts";

const root = new URL("../..", import.meta.url).pathname;
const secret = () => randomBytes(32).toString("base64url");
const adminToken = secret();
const state = mkdtempSync(join(tmpdir(), "exchange-curl-"));
let server: WranglerDev;
let exchange = "";

type Account = { i_account: number; username: string; api_key: string };

/** curl --digest -u user:key, form fields with --data-urlencode (POST) or -G (GET). */
const digest = (
  account: Account,
  method: "GET" | "POST",
  path: string,
  form: Record<string, string | number> = {},
  key = account.api_key,
) =>
  curl(state, [
    "--digest",
    "-u",
    `${account.username}:${key}`,
    ...(method === "GET" ? ["-G"] : ["-X", "POST"]),
    ...Object.entries(form).flatMap(([k, v]) => ["--data-urlencode", `${k}=${v}`]),
    `${exchange}${path}`,
  ]);

/** `npm run exchange -- ...`; the JSON object on its last line. */
function npmExchange(...args: string[]): Promise<Account> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "exchange", "--", ...args], {
      cwd: root,
      env: { ...process.env, EXCHANGE_URL: exchange, EXCHANGE_ADMIN_TOKEN: adminToken },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`npm run exchange ${args.join(" ")} exited ${code}: ${err}${out}`));
      resolve(JSON.parse(out.trim().split("\n").pop()!));
    });
  });
}

beforeAll(async () => {
  const port = await freeTcpPort();
  server = await startWranglerDev({
    port,
    persistTo: state,
    stdio: process.env.E2E_VERBOSE ? "inherit" : "ignore",
    vars: { JWT_SECRET: secret(), ENCRYPTION_KEY: secret(), NODE_TOKEN: secret(), EXCHANGE_ADMIN_TOKEN: adminToken },
  });
  await server.ready;
  exchange = `${server.base}/exchange`;
});

afterAll(async () => {
  await server?.stop();
  rmSync(state, { recursive: true, force: true });
});

describe("curl --digest against wrangler dev", () => {
  let buyer: Account;
  let seller: Account;

  it("has a curl with Digest SHA-256 support", async () => {
    const version = await new Promise<string>((resolve, reject) =>
      execFile("curl", ["--version"], (err, stdout) => (err ? reject(err) : resolve(stdout))),
    );
    expect(version).toMatch(/^curl \d+\.\d+/);
  });

  it("creates accounts with npm run exchange, the JSON object on the last line", async () => {
    // A script calling as fast as curl starts would pass the default 10 requests a second.
    buyer = await npmExchange("create-account", "--role", "buyer", "--balance", "100", "--per-second-cap", "100");
    seller = await npmExchange("create-account", "--role", "seller", "--username", "curl-seller");
    expect(buyer).toEqual({
      i_account: expect.any(Number),
      username: expect.stringMatching(/^buyer-/),
      api_key: expect.stringMatching(/^xb_/),
    });
    expect(seller).toMatchObject({ username: "curl-seller", api_key: expect.stringMatching(/^xs_/) });
  });

  it("answers the balance to curl --digest (SHA-256, userhash)", async () => {
    const res = await digest(buyer, "POST", "/buyers/balance");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ status: "success", i_account: buyer.i_account, balance: 100, currency: "USD" });
    expect(res.headers).toMatch(/WWW-Authenticate: Digest realm="exchange", qop="auth", algorithm=SHA-256/i);
    // The MD5 challenge names no algorithm (MD5 is the RFC's default), so curl, which reads the
    // joined field's last `algorithm=`, answers SHA-256 (issue 20: MD5 is opt-in per account).
    expect(res.headers).toMatch(/WWW-Authenticate: Digest [^\r\n]*, Digest realm="exchange", qop="auth", nonce=/i);
    expect(res.headers).not.toMatch(/algorithm=MD5/i);
  });

  it("sees curl answer the challenge with a hashed username (userhash=true)", async () => {
    const trace = await new Promise<string>((resolve, reject) =>
      execFile(
        "curl",
        [
          "-sS",
          "-v",
          "-o",
          "/dev/null",
          "--digest",
          "-u",
          `${buyer.username}:${buyer.api_key}`,
          "-X",
          "POST",
          `${exchange}/buyers/balance`,
        ],
        { encoding: "utf8" },
        (err, _stdout, stderr) => (err ? reject(err) : resolve(stderr)),
      ),
    );
    // The Workers runtime sends repeated headers as one field, the challenges comma-separated in
    // order (RFC 9110 allows it): SHA-256 first, then MD5 (no algorithm named: the RFC's default),
    // sharing realm, nonce and opaque.
    const challenge = /^< WWW-Authenticate: (.*)$/im.exec(trace)?.[1] ?? "";
    expect(challenge.match(/algorithm=[^,\s]+/g)).toEqual(["algorithm=SHA-256"]);
    // curl reads that field as one challenge whose last algorithm wins: SHA-256, the only one named.
    const sent = /^> Authorization: Digest (.*)$/m.exec(trace)?.[1] ?? "";
    const algorithm = /algorithm=(SHA-256|MD5)/.exec(sent)?.[1];
    expect(algorithm).toBe("SHA-256");
    expect(sent).toMatch(/userhash=true/);
    const userhash = createHash(algorithm === "MD5" ? "md5" : "sha256")
      .update(`${buyer.username}:exchange`)
      .digest("hex");
    expect(sent).toContain(`username="${userhash}"`);
    expect(trace).toMatch(/< HTTP\/1\.1 200/);
  });

  it("answers a wrong key 401 with a Digest challenge", async () => {
    const res = await digest(buyer, "POST", "/buyers/balance", {}, "xb_wrong-key");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: "error", message: "invalid credentials" });
    expect(
      res.headers
        .split(/\r?\n\r?\n/)
        .filter(Boolean)
        .pop(),
    ).toMatch(/WWW-Authenticate: Digest realm="exchange"/i);
  });

  it("answers a legacy v1 call signed with sha256(controller + api_key + api_login + ts)", async () => {
    const ts = String(Math.floor(Date.now() / 1000));
    const signature = createHash("sha256").update(`balance${buyer.api_key}${buyer.username}${ts}`).digest("hex");
    const res = await curl(state, [
      "-X",
      "POST",
      ...["api_login", buyer.username, "ts", ts, "signature", signature, "webapi", "1"].flatMap((v, i, all) =>
        i % 2 === 0 ? ["--data-urlencode", `${v}=${all[i + 1]}`] : [],
      ),
      `${exchange}/v1/balance.php`,
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "success", balance: 100 });
  });

  it("runs the eSIM flow: countries, market, purchase, list, orders, top-up list, top-up purchase, balance", async () => {
    // The seller publishes a package and a top-up (seller key).
    const pkg = await digest(seller, "POST", "/sellers/esim/packages/publish", {
      name: "France 5 GB",
      countries: "FRANCE",
      data_gb: 5,
      validity_days: 30,
      price: "10",
    });
    expect(pkg.status, JSON.stringify(pkg.body)).toBe(200);
    const topup = await digest(seller, "POST", "/sellers/esim/topups/publish", {
      name: "France +1 GB",
      supported_countries: "FRANCE",
      data_GB: 1,
      validity_days: 7,
      price: "3",
    });
    expect(topup.status, JSON.stringify(topup.body)).toBe(200);

    const countries = await digest(buyer, "GET", "/buyers/esim/countries");
    expect(countries.status, JSON.stringify(countries.body)).toBe(200);
    expect(countries.body.countries.map((c: any) => c.name)).toContain("FRANCE");

    const market = await digest(buyer, "POST", "/buyers/esim/market", { country: "FRANCE", data_GB: 5, pager: 20, off: 0 });
    expect(market.status, JSON.stringify(market.body)).toBe(200);
    const offer = market.body.packages.find((p: any) => p.name === "France 5 GB");
    expect(offer).toMatchObject({ i_esim_package: expect.any(Number), price_with_fee: expect.any(Number), data_gb: 5, validity_days: 30 });

    const bought = await digest(buyer, "POST", "/buyers/esim/purchase", {
      i_account: buyer.i_account,
      i_esim_package: offer.i_esim_package,
    });
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    expect(bought.body).toMatchObject({
      status: "success",
      iccid: expect.stringMatching(/^\d{19,20}$/),
      lpa: expect.stringMatching(/^LPA:1\$/),
    });
    const iccid = bought.body.iccid as string;

    const list = await digest(buyer, "POST", "/buyers/esim/list", { iccid, pager: 10, off: 0 });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.esims.map((e: any) => e.iccid)).toEqual([iccid]);

    const orders = await digest(buyer, "POST", "/buyers/esim/orders", {
      date_from: "2000-01-01 00:00:00",
      date_to: "2100-01-01 00:00:00",
      pager: 10,
      off: 0,
    });
    expect(orders.status, JSON.stringify(orders.body)).toBe(200);
    expect(orders.body.orders.map((o: any) => o.order_type)).toEqual(["purchase"]);

    const topups = await digest(buyer, "POST", "/buyers/esim/topup/list", { iccid });
    expect(topups.status, JSON.stringify(topups.body)).toBe(200);
    const offered = topups.body.packages.find((p: any) => p.name === "France +1 GB");
    expect(offered).toMatchObject({ package_type_id: expect.any(Number), price_with_fee: expect.any(Number) });

    const topped = await digest(buyer, "POST", "/buyers/esim/topup/purchase", {
      iccid,
      package_type_id: offered.package_type_id,
      i_account: buyer.i_account,
    });
    expect(topped.status, JSON.stringify(topped.body)).toBe(200);
    expect(topped.body.order_uuid).toMatch(/^[0-9a-f-]{36}$/);

    const balance = await digest(buyer, "POST", "/buyers/balance");
    expect(balance.body.balance).toBeCloseTo(100 - offer.price_with_fee - offered.price_with_fee, 6);
  });

  it("seeds the demo market with npm run exchange -- seed-market, and seeding again duplicates nothing", async () => {
    const market = await npmExchange("create-account", "--role", "seller", "--username", "market-seller", "--per-second-cap", "100");
    const first = (await npmExchange("seed-market", "--seller", market.username, "--key", market.api_key)) as any;
    expect(first).toMatchObject({ destinations: 45, packages: { total: 290, published: 290 }, topups: { total: 15, published: 15 } });
    const again = (await npmExchange("seed-market", "--seller", market.username, "--key", market.api_key)) as any;
    expect(again.packages).toMatchObject({ published: 0, updated: 0, unchanged: 290 });
    expect(again.topups).toMatchObject({ published: 0, updated: 0, unchanged: 15 });
    const listed = await digest(market, "POST", "/sellers/esim/packages/list", { pager: 1000, off: 0 });
    expect(listed.body.total).toBe(290);
    expect(new Set(listed.body.packages.map((p: any) => p.name)).size).toBe(290);
    const offers = await digest(buyer, "POST", "/buyers/esim/market", { country: "KENYA", data_GB: -1, pager: 20, off: 0 });
    expect(offers.body.packages.map((p: any) => p.name)).toContain("Kenya Unlimited 10 days");
  });
});
