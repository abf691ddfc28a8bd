// Client ID Metadata Documents: an agent whose client_id is an https URL publishes its
// registration as JSON at that URL, and the authorization server fetches it. The default is the
// runtime's fetch, guarded: https only, no private address, no redirect followed, a small body,
// a short timeout. Tests serve documents by answering that fetch.
import { checkUrlForm } from "../../services/outbound-guard.ts";

export interface ClientMetadataSource {
  /** The parsed JSON document at `url`, or null when it cannot be had (refused, unreachable, not JSON, too big). */
  fetch(url: string): Promise<unknown>;
}

const MAX_BYTES = 16 * 1024;
const TIMEOUT_MS = 5_000;

export class FetchClientMetadata implements ClientMetadataSource {
  async fetch(url: string): Promise<unknown> {
    if (!checkUrlForm(url, false).ok) return null;
    try {
      const res = await fetch(url, {
        headers: { accept: "application/json" },
        redirect: "manual",
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (res.status !== 200) return null;
      const text = await res.text();
      if (text.length > MAX_BYTES) return null;
      return JSON.parse(text) as unknown;
    } catch {
      return null;
    }
  }
}

export const clientMetadataSource = (): ClientMetadataSource => new FetchClientMetadata();
