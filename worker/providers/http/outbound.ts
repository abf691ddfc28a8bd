// Outgoing HTTP POSTs to addresses customers give us (the account webhook, Slack incoming
// webhooks, generic JSON webhooks), and the name lookups that check where they lead. The
// embedded default is the runtime's fetch and DNS over HTTPS; tests replace the whole adapter
// with a recorder. Which addresses may be reached is policy, decided in services/outbound-guard.ts.

export type OutboundPost = {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
};

/** What the receiver answered; redirects are answers too (never followed). */
export type OutboundAnswer = { status: number; body: string };

export interface OutboundHttp {
  /** Throws when no answer came (refused, reset, timed out). */
  post(request: OutboundPost): Promise<OutboundAnswer>;
  /** Every IPv4 and IPv6 address the name resolves to; [] when it resolves to none. */
  resolve(host: string): Promise<string[]>;
}

/** How much of a receiver's answer is kept (for the delivery log). */
const ANSWER_BYTES = 1024;
const DOH_URL = "https://cloudflare-dns.com/dns-query";

type DohAnswer = { Answer?: Array<{ type: number; data: string }> };
const A = 1;
const AAAA = 28;

export class FetchOutboundHttp implements OutboundHttp {
  async post(request: OutboundPost): Promise<OutboundAnswer> {
    const res = await fetch(request.url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      redirect: "manual",
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    const text = await res.text().catch(() => "");
    return { status: res.status, body: text.slice(0, ANSWER_BYTES) };
  }

  async resolve(host: string): Promise<string[]> {
    const lookups = [A, AAAA].map(async (type) => {
      const url = `${DOH_URL}?name=${encodeURIComponent(host)}&type=${type}`;
      const res = await fetch(url, { headers: { accept: "application/dns-json" }, signal: AbortSignal.timeout(3_000) });
      if (!res.ok) throw new Error(`DNS lookup of ${host} answered ${res.status}`);
      const answer = (await res.json()) as DohAnswer;
      return (answer.Answer ?? []).filter((a) => a.type === type).map((a) => a.data);
    });
    return (await Promise.all(lookups)).flat();
  }
}

export const outboundHttp = (): OutboundHttp => new FetchOutboundHttp();
