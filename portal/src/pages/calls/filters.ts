// The calls list's filters as the URL keeps them (?q=…&keyword=a&keyword=b), and the GET /calls
// query they make. from/to are kept as ISO instants, so a shared link means the same time anywhere;
// the datetime-local inputs show them in the reader's time zone.
import type { paths } from "../../api/client.ts";

export type CallQuery = NonNullable<paths["/calls"]["get"]["parameters"]["query"]>;

/** Every filter GET /calls takes that the page offers (sort and paging aside). */
export const FILTER_KEYS = [
  "q",
  "from",
  "to",
  "recommendation",
  "category",
  "min_probability",
  "origin",
  "destination_id",
  "route_alert",
  "entity",
  "keyword",
  "sampled",
  "status",
  "analysis_status",
  "identity_status",
  "attestation",
] as const;

export const DEFAULT_SORT = "-started_at";
export const DEFAULT_LIMIT = 50;
export const LIMITS = [25, 50, 100, 200] as const;

type Url = { get: (name: string) => string; getAll: (name: string) => string[] };

export const hasFilters = (url: Url) => FILTER_KEYS.some((key) => (key === "keyword" ? url.getAll(key).length > 0 : url.get(key) !== ""));

export const limitOf = (url: Url) => {
  const n = Number(url.get("limit"));
  return Number.isInteger(n) && n >= 1 && n <= 500 ? n : DEFAULT_LIMIT;
};
export const offsetOf = (url: Url) => {
  const n = Number(url.get("offset"));
  return Number.isInteger(n) && n > 0 ? n : 0;
};

/** The URL's filters as GET /calls takes them; a value the API refuses comes back as its 422, shown by its field. */
export function callQuery(url: Url): CallQuery {
  const query: Record<string, unknown> = { limit: limitOf(url), offset: offsetOf(url) };
  for (const key of FILTER_KEYS) {
    if (key === "keyword") {
      const keywords = url.getAll(key).filter(Boolean);
      if (keywords.length) query.keyword = keywords;
    } else if (url.get(key)) query[key] = url.get(key);
  }
  const sort = url.get("sort");
  if (sort && sort !== DEFAULT_SORT) query.sort = sort;
  return query as CallQuery;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** An ISO instant as a datetime-local input's value in this browser's time zone ("" if unreadable). */
export function toLocalInput(iso: string): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local value (the reader's time) as the ISO instant the API and the URL keep. */
export function fromLocalInput(local: string): string {
  if (!local) return "";
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
}
