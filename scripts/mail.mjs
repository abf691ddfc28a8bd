// `npm run mail`: the latest messages the embedded mail adapter kept (invitations with their
// temporary passwords, resets, alerts), read from the local mail view of the service `npm start`
// runs (GET /dev/mail.json, served only from loopback with LOCAL_MAIL_VIEW=true).
//
//   npm run mail                      the 10 newest messages, newest first
//   npm run mail -- --to a@b.test     only those to one address
//   npm run mail -- --limit 3 --json  the JSON as the Worker answers it
//
// Where: MAIL_URL (e.g. http://127.0.0.1:8787/dev/mail.json), else http://$API_HOST:$API_PORT
// (defaults 127.0.0.1, 8787). The same list is a page at /dev/mail.
import { parseArgs } from "node:util";

const USAGE = "usage: npm run mail -- [--to address] [--limit N] [--json]";

function fail(message) {
  console.error(message);
  process.exit(1);
}

function mailUrl(env = process.env) {
  if (env.MAIL_URL) return env.MAIL_URL;
  return `http://${env.API_HOST ?? "127.0.0.1"}:${env.API_PORT ?? 8787}/dev/mail.json`;
}

/** One message as text: a header block, then the body indented. */
function formatMessage(message) {
  const body = message.text
    .split("\n")
    .map((line) => `    ${line}`.trimEnd())
    .join("\n");
  return [`Date:    ${message.created_at}`, `To:      ${message.to.join(", ")}`, `Subject: ${message.subject}`, "", body].join("\n");
}

async function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: { to: { type: "string" }, limit: { type: "string", default: "10" }, json: { type: "boolean" }, help: { type: "boolean" } },
      strict: true,
    }));
  } catch (err) {
    fail(`${err.message}\n${USAGE}`);
  }
  if (values.help) return console.log(USAGE);
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) fail(`--limit must be a positive whole number\n${USAGE}`);

  const url = new URL(mailUrl());
  url.searchParams.set("limit", String(limit));
  if (values.to) url.searchParams.set("to", values.to);
  let res;
  try {
    res = await fetch(url);
  } catch (err) {
    fail(`nothing answers at ${url.origin} (${err.cause?.code ?? err.message}): is npm start running?`);
  }
  if (res.status === 404)
    fail(
      `${url.origin} has no local mail view: it is served by npm start only (LOCAL_MAIL_VIEW=true, MAIL_PROVIDER=outbox), to this machine.`,
    );
  if (!res.ok) fail(`${url} answered ${res.status}: ${await res.text()}`);
  const { messages } = await res.json();
  if (values.json) return console.log(JSON.stringify({ messages }, null, 2));
  if (messages.length === 0) return console.log(values.to ? `No mail to ${values.to}.` : "No mail yet.");
  console.log(messages.map(formatMessage).join(`\n\n${"-".repeat(72)}\n\n`));
  console.log(`\n${messages.length} message${messages.length === 1 ? "" : "s"}, newest first (the page: ${url.origin}/dev/mail)`);
}

await main();
