// How the portal writes times, money, durations and verdicts.

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });
const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 4 });

export const when = (iso: string | null | undefined) => (iso ? dateTime.format(new Date(iso)) : "—");
export const money = (amount: number | null | undefined) => (amount === null || amount === undefined ? "—" : usd.format(amount));
export const count = (n: number | null | undefined) => (n === null || n === undefined ? "—" : n.toLocaleString());

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return "—";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
}

export const ms = (n: number | null | undefined) => (n === null || n === undefined ? "—" : `${n.toLocaleString()} ms`);

/** Clients treat 70 and above as high risk and 30 and above as medium (known values). */
export const riskLevel = (probability: number | null | undefined) =>
  probability === null || probability === undefined ? "none" : probability >= 70 ? "high" : probability >= 30 ? "medium" : "low";

/** snake_case keys (categories, statuses) read as words. */
export const words = (key: string | null | undefined) => (key ? key.replace(/_/g, " ") : "—");
