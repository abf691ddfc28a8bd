// `npm run exchange -- <command>`: exchange accounts and keys on the local service started by
// `npm start` (or any running Worker), through the exchange admin endpoints, authenticated with
// EXCHANGE_ADMIN_TOKEN (a secret of its own, which npm start writes) from .dev.vars or the environment.
//
//   create-account --role buyer|seller [--balance 100] [--username name] [--hourly-quota N] [--per-second-cap N] [--digest-md5]
//   rotate-key --i-account N --role buyer|seller
//   credit --i-account N --amount 25.50
//   seed-market [--seller username] [--key seller_api_key] [--reset]
//   seed-iot [--buyer username] [--key buyer_api_key]
//
// seed-market publishes the demo market (scripts/lib/demo-market.mjs) through the seller
// endpoints, over HTTP Digest with the seller's key: --key, else EXCHANGE_SELLER_KEY, else the
// demo seller's from .wrangler/demo-exchange.json (the default seller). Running it again publishes
// only what is missing and updates what changed; --reset also withdraws the seller's other offers.
// seed-iot records the demo IoT history (scripts/lib/demo-iot.mjs) as a buyer (--key, else
// EXCHANGE_BUYER_KEY, else the demo buyer's) the way devices do: an eSIM, devices registered on it,
// their events sent with each device's token; a device that already has events sends none again.
// The demo accounts are read from LOCAL_STATE_DIR (default .wrangler/), where npm start keeps them.
//
// The last line printed is one JSON object: {i_account, username, api_key} for create-account
// and rotate-key, {i_account, balance} for credit, the counts for seed-market and seed-iot.
// Where: EXCHANGE_URL (e.g. http://127.0.0.1:8787/exchange), else http://$API_HOST:$API_PORT
// with EXCHANGE_PREFIX (defaults 127.0.0.1, 8787, /exchange).
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { seedIotHistory } from "./lib/demo-iot.mjs";
import { seedMarket } from "./lib/demo-market.mjs";

const root = new URL("..", import.meta.url).pathname;
/** Where npm start keeps local D1 and the demo accounts. */
const stateDir = (process.env.LOCAL_STATE_DIR ?? `${root}.wrangler`).replace(/\/$/, "");

const USAGE = `usage:
  npm run exchange -- create-account --role buyer|seller [--balance 100] [--username name] [--hourly-quota N] [--per-second-cap N] [--digest-md5]
  npm run exchange -- rotate-key --i-account N --role buyer|seller
  npm run exchange -- credit --i-account N --amount 25.50
  npm run exchange -- seed-market [--seller username] [--key seller_api_key] [--reset]
  npm run exchange -- seed-iot [--buyer username] [--key buyer_api_key]`;

function fail(message) {
  console.error(message);
  process.exit(1);
}

/** KEY=value lines of .dev.vars (comments and blanks skipped). */
function devVars() {
  const path = `${root}.dev.vars`;
  if (!existsSync(path)) return {};
  const vars = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const match = /^\s*([A-Z0-9_]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (match) vars[match[1]] = match[2].replace(/^"(.*)"$/, "$1");
  }
  return vars;
}

/** The demo buyer and seller npm start made ({buyer, seller, ...}), or undefined. */
function demoAccounts() {
  const path = `${stateDir}/demo-exchange.json`;
  return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
}

export function exchangeBase(env = process.env) {
  if (env.EXCHANGE_URL) return env.EXCHANGE_URL.replace(/\/$/, "");
  return `http://${env.API_HOST ?? "127.0.0.1"}:${env.API_PORT ?? 8787}${env.EXCHANGE_PREFIX ?? "/exchange"}`;
}

export function adminToken(env = process.env) {
  const vars = devVars();
  return env.EXCHANGE_ADMIN_TOKEN ?? vars.EXCHANGE_ADMIN_TOKEN;
}

async function adminPost(path, body) {
  const token = adminToken();
  if (!token) fail("no EXCHANGE_ADMIN_TOKEN in the environment or .dev.vars (npm start writes one)");
  const url = `${exchangeBase()}/admin${path}`;
  let res;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
  } catch (err) {
    fail(`cannot reach ${url} (${err.cause?.code ?? err.message}): is npm start running?`);
  }
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    fail(`${res.status} from ${url}: ${text.slice(0, 200)}`);
  }
  if (json.status !== "success") fail(`${res.status}: ${json.message ?? text}`);
  return json;
}

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  const { values } = parseArgs({
    args: rest,
    options: {
      role: { type: "string" },
      balance: { type: "string" },
      username: { type: "string" },
      "hourly-quota": { type: "string" },
      "per-second-cap": { type: "string" },
      "i-account": { type: "string" },
      amount: { type: "string" },
      seller: { type: "string" },
      buyer: { type: "string" },
      key: { type: "string" },
      reset: { type: "boolean" },
      "digest-md5": { type: "boolean" },
    },
    strict: true,
  });
  if (command === "create-account") {
    if (!values.role) fail(`--role is required\n${USAGE}`);
    const created = await adminPost("/accounts", {
      role: values.role,
      ...(values.balance !== undefined ? { balance: values.balance } : {}),
      ...(values.username !== undefined ? { username: values.username } : {}),
      ...(values["hourly-quota"] !== undefined ? { hourly_quota: values["hourly-quota"] } : {}),
      ...(values["per-second-cap"] !== undefined ? { per_second_cap: values["per-second-cap"] } : {}),
      // Digest with MD5 for an old client (SHA-256 is always accepted).
      ...(values["digest-md5"] ? { digest_md5: "1" } : {}),
    });
    console.log(`created ${created.role} account ${created.i_account} (${created.username}), balance ${created.balance} USD`);
    console.log(JSON.stringify({ i_account: created.i_account, username: created.username, api_key: created.api_key }));
  } else if (command === "rotate-key") {
    if (!values["i-account"] || !values.role) fail(`--i-account and --role are required\n${USAGE}`);
    const rotated = await adminPost(`/accounts/${encodeURIComponent(values["i-account"])}/keys`, { role: values.role });
    console.log(`new ${rotated.role} key for account ${rotated.i_account}; the old one no longer works`);
    console.log(JSON.stringify({ i_account: rotated.i_account, username: rotated.username, api_key: rotated.api_key }));
  } else if (command === "credit") {
    if (!values["i-account"] || !values.amount) fail(`--i-account and --amount are required\n${USAGE}`);
    const credited = await adminPost(`/accounts/${encodeURIComponent(values["i-account"])}/credit`, { amount: values.amount });
    console.log(JSON.stringify({ i_account: credited.i_account, balance: credited.balance }));
  } else if (command === "seed-market") {
    const demo = demoAccounts()?.seller;
    const username = values.seller ?? demo?.username;
    const key = values.key ?? process.env.EXCHANGE_SELLER_KEY ?? (demo?.username === username ? demo?.api_key : undefined);
    if (!username || !key) fail(`--seller and --key (or EXCHANGE_SELLER_KEY) are required without the demo seller\n${USAGE}`);
    let summary;
    try {
      summary = await seedMarket(exchangeBase(), username, key, { reset: values.reset === true });
    } catch (err) {
      fail(`seed-market: ${err.cause?.code ?? err.message}`);
    }
    const { packages: p, topups: t } = summary;
    console.log(
      `demo market of ${username}: ${summary.destinations} destinations; packages ${p.published} published, ${p.updated} updated, ` +
        `${p.unchanged} unchanged; top-ups ${t.published} published, ${t.updated} updated, ${t.unchanged} unchanged`,
    );
    console.log(JSON.stringify({ seller: username, ...summary }));
  } else if (command === "seed-iot") {
    const demo = demoAccounts()?.buyer;
    const username = values.buyer ?? demo?.username;
    const key = values.key ?? process.env.EXCHANGE_BUYER_KEY ?? (demo?.username === username ? demo?.api_key : undefined);
    if (!username || !key) fail(`--buyer and --key (or EXCHANGE_BUYER_KEY) are required without the demo buyer\n${USAGE}`);
    let summary;
    try {
      summary = await seedIotHistory(exchangeBase(), username, key);
    } catch (err) {
      fail(`seed-iot: ${err.cause?.code ?? err.message}`);
    }
    console.log(
      `demo IoT history of ${username}: ${summary.devices} devices on eSIM ${summary.iccid}; ${summary.events.sent} events sent, ` +
        `${summary.events.existing} already there; ${summary.charged} USD charged`,
    );
    console.log(JSON.stringify({ buyer: username, ...summary }));
  } else {
    fail(USAGE);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => fail(String(err?.message ?? err)));
}
