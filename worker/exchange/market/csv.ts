// The CSV rate deck (RFC 4180: CRLF line ends, fields quoted when they hold a comma, quote or line break).
import type { MarketRate } from "../../services/exchange/market/search.ts";

export const RATE_DECK_COLUMNS = [
  "service",
  "country",
  "prefix",
  "description",
  "price_with_fee",
  "currency",
  "unit",
  "i_vendor",
  "vendor",
  "updated_at",
] as const satisfies readonly (keyof MarketRate)[];

const cell = (v: unknown) => {
  const text = v === null || v === undefined ? "" : String(v);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export function rateDeckCsv(rates: MarketRate[]): string {
  const lines = [RATE_DECK_COLUMNS.join(",")];
  for (const r of rates) lines.push(RATE_DECK_COLUMNS.map((k) => cell(r[k])).join(","));
  return `${lines.join("\r\n")}\r\n`;
}
