// Client ID Metadata Documents: an agent whose client_id is an https URL publishes its
// registration as JSON at that URL, and the authorization server fetches it. The default is the
// runtime's fetch: no redirect followed, a short timeout, and the body read as a stream and
// dropped (the connection aborted) as soon as it passes the limit, so a huge or endless answer
// costs no more than the limit. Where it may go is policy, checked before by the caller
// (services/oauth/clients.ts, with the webhooks' address check). Tests serve documents by
// answering that fetch.

/** A fetched document and how long its publisher lets it be cached (Cache-Control max-age), when it says. */
export type FetchedMetadata = { document: unknown; maxAgeSec: number | null };

export interface ClientMetadataSource {
  /** The parsed JSON document at `url`, or null when it cannot be had (unreachable, not 200, not JSON, too big). */
  fetch(url: string): Promise<FetchedMetadata | null>;
}

export const MAX_DOCUMENT_BYTES = 16 * 1024;
const TIMEOUT_MS = 5_000;

/** The body's text, or null once it passes `maxBytes` (the stream is cancelled there, the rest never read). */
async function readAtMost(res: Response, maxBytes: number): Promise<string | null> {
  const declared = Number(res.headers.get("content-length") ?? "");
  if (!res.body) return "";
  if (declared > maxBytes) {
    await res.body.cancel().catch(() => {});
    return null;
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
}

/** Cache-Control's max-age in seconds; null when absent, 0 for no-store and no-cache. */
export function maxAgeOf(cacheControl: string | null): number | null {
  if (!cacheControl) return null;
  const directives = cacheControl
    .toLowerCase()
    .split(",")
    .map((d) => d.trim());
  if (directives.some((d) => d === "no-store" || d === "no-cache")) return 0;
  const maxAge = directives.map((d) => /^max-age\s*=\s*"?(\d+)"?$/.exec(d)?.[1]).find((v) => v !== undefined);
  return maxAge === undefined ? null : Number(maxAge);
}

export class FetchClientMetadata implements ClientMetadataSource {
  async fetch(url: string): Promise<FetchedMetadata | null> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
    try {
      const res = await fetch(url, { headers: { accept: "application/json" }, redirect: "manual", signal: abort.signal });
      if (res.status !== 200) {
        await res.body?.cancel().catch(() => {});
        return null;
      }
      const text = await readAtMost(res, MAX_DOCUMENT_BYTES);
      if (text === null) return null;
      return { document: JSON.parse(text) as unknown, maxAgeSec: maxAgeOf(res.headers.get("cache-control")) };
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
      // Whatever is still coming (a body dropped past the limit) is not waited for.
      abort.abort();
    }
  }
}

export const clientMetadataSource = (): ClientMetadataSource => new FetchClientMetadata();
