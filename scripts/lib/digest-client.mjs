// A small HTTP Digest client (RFC 7616, SHA-256, qop=auth) for the exchange's form endpoints, as
// `curl --digest` talks to them: the first request draws the 401 challenge, later ones reuse its
// nonce with a rising nonce count until the server says it is stale. One client sends one request
// at a time (nonce counts must rise in order); run several clients for parallel work.
import { createHash, randomBytes } from "node:crypto";

const sha256 = (text) => createHash("sha256").update(text).digest("hex");

/** The first Digest challenge of a WWW-Authenticate value (repeated challenges arrive comma-joined). */
export function firstChallenge(header) {
  const first = (header ?? "").split(/,\s*(?=Digest\s)/i)[0] ?? "";
  const params = {};
  for (const m of first.replace(/^\s*Digest\s+/i, "").matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g)) params[m[1]] = m[2] ?? m[3];
  return params;
}

/**
 * `client.post(path, form, headers)` → {status, body}. base is the exchange's URL (…/exchange). A
 * 429 is waited out (Retry-After) and sent again, up to `maxWaits` times. `fetch` is the global one
 * unless given (the Worker tests pass the Worker's own).
 */
export function digestClient(base, username, key, { maxWaits = 20, fetch: fetchImpl = fetch } = {}) {
  let challenge = null;
  let nc = 0;

  async function send(path, body, authorization, headers = {}) {
    return fetchImpl(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers, ...(authorization ? { authorization } : {}) },
      body,
    });
  }

  function authorization(uri) {
    nc += 1;
    const count = nc.toString(16).padStart(8, "0");
    const cnonce = randomBytes(8).toString("hex");
    const { realm, nonce, opaque } = challenge;
    const ha1 = sha256(`${username}:${realm}:${key}`);
    const response = sha256(`${ha1}:${nonce}:${count}:${cnonce}:auth:${sha256(`POST:${uri}`)}`);
    return (
      `Digest username="${username}", realm="${realm}", nonce="${nonce}", uri="${uri}", algorithm=SHA-256, qop=auth, ` +
      `nc=${count}, cnonce="${cnonce}", response="${response}"${opaque ? `, opaque="${opaque}"` : ""}`
    );
  }

  async function post(path, form = {}, headers = {}) {
    const body = new URLSearchParams(Object.entries(form).map(([k, v]) => [k, String(v)])).toString();
    const uri = new URL(`${base}${path}`).pathname;
    for (let attempt = 0, waits = 0; ; attempt++) {
      if (!challenge) {
        const res = await send(path, body);
        if (res.status !== 401) throw new Error(`${path}: expected a Digest challenge, got ${res.status}`);
        challenge = firstChallenge(res.headers.get("www-authenticate"));
        nc = 0;
      }
      const res = await send(path, body, authorization(uri), headers);
      if (res.status === 401 && attempt < 2) {
        challenge = firstChallenge(res.headers.get("www-authenticate"));
        nc = 0;
        if (!challenge.nonce) challenge = null;
        continue;
      }
      if (res.status === 429 && waits++ < maxWaits) {
        await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get("retry-after") ?? 1)));
        continue;
      }
      const text = await res.text();
      let json;
      try {
        json = JSON.parse(text);
      } catch {
        json = { status: "error", message: text.slice(0, 200) };
      }
      return { status: res.status, body: json };
    }
  }

  return { post };
}
