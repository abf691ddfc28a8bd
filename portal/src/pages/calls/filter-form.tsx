// The calls list's filter form. A choice in a list applies at once; typed values (search text,
// dates, category, probability, entity, a keyword to add) apply on Enter, when the field is left,
// or with "Apply". A 422 from GET /calls shows beside the field it names.
import { useState, type FormEvent, type KeyboardEvent } from "react";
import { useDestinations } from "../../api/destinations.ts";
import { Field, SelectField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import type { useUrlState } from "../../lib/url-state.ts";
import { fromLocalInput, hasFilters, toLocalInput, FILTER_KEYS } from "./filters.ts";

type Url = ReturnType<typeof useUrlState>;

const TYPED = ["q", "from", "to", "category", "min_probability", "entity", "keyword"] as const;
type Typed = (typeof TYPED)[number];
type Drafts = Record<Typed, string>;

const CATEGORIES = [
  "credit_card_scam",
  "government_impersonation",
  "tech_support_scam",
  "robocall",
  "telemarketing",
  "legitimate",
  "unknown",
];
const STATUSES = ["ringing", "active", "completed", "failed", "rejected"];
/** STIR/SHAKEN as screening read it before the call rang. */
const IDENTITY_STATUSES = [
  ["verified", "Verified"],
  ["failed", "Failed"],
  ["absent", "Absent (not signed)"],
] as const;
const ANALYSIS_STATUSES = ["none", "pending", "queued", "running", "done", "failed", "skipped"];

const EMPTY: Drafts = { q: "", from: "", to: "", category: "", min_probability: "", entity: "", keyword: "" };

/** The typed fields as the URL holds them now (dates in the reader's time; the keyword box starts empty). */
function fromUrl(url: Url): Drafts {
  return {
    q: url.get("q"),
    from: toLocalInput(url.get("from")),
    to: toLocalInput(url.get("to")),
    category: url.get("category"),
    min_probability: url.get("min_probability"),
    entity: url.get("entity"),
    keyword: "",
  };
}

export function FilterForm({ url, error }: { url: Url; error: unknown }) {
  const current = fromUrl(url);
  const keywords = url.getAll("keyword").join("\n");
  const [drafts, setDrafts] = useState(current);
  const [seen, setSeen] = useState({ ...current, keyword: keywords });
  // A value changed in the URL (a chip, "Clear filters", the back button): its box shows it again;
  // the other boxes keep what is being typed in them.
  const changed = TYPED.filter((key) => (key === "keyword" ? seen.keyword !== keywords : seen[key] !== current[key]));
  if (changed.length) {
    setSeen({ ...current, keyword: keywords });
    setDrafts((d) => ({ ...d, ...Object.fromEntries(changed.map((key) => [key, current[key]])) }));
  }
  const destinations = useDestinations();

  /** Puts every changed typed value, and `extra`, in the URL at once (back to the first page). */
  const apply = (extra: Record<string, string | string[]> = {}) => {
    const values: Record<string, string | string[]> = {};
    for (const key of TYPED) {
      const draft = drafts[key].trim();
      if (key === "keyword") {
        const keyword = draft.toLowerCase();
        const keywords = url.getAll("keyword");
        if (keyword && !keywords.includes(keyword)) values.keyword = [...keywords, keyword];
      } else if (draft !== current[key]) values[key] = key === "from" || key === "to" ? fromLocalInput(draft) : draft;
    }
    Object.assign(values, extra);
    if (!Object.keys(values).length) return;
    url.set(values);
    featureUsed("calls.filter");
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply();
  };
  const typed = (key: Typed) => ({
    name: key,
    value: drafts[key],
    error,
    onChange: (e: { target: { value: string } }) => setDrafts((d) => ({ ...d, [key]: e.target.value })),
    onBlur: () => apply(),
    onKeyDown: (e: KeyboardEvent) => {
      if (e.key === "Escape") setDrafts((d) => ({ ...d, [key]: current[key] }));
    },
  });
  const chosen = (key: string) => ({
    name: key,
    value: url.get(key),
    error,
    onChange: (e: { target: { value: string } }) => apply({ [key]: e.target.value }),
  });
  const clear = () => {
    url.set(Object.fromEntries(FILTER_KEYS.map((key) => [key, ""])));
    setDrafts(EMPTY);
    featureUsed("calls.clear_filters");
  };

  return (
    <form className="calls-filters" onSubmit={submit} aria-label="Filter the calls">
      <div className="calls-filter-grid">
        <Field label="Search" type="search" placeholder="Number, transcript, summary" {...typed("q")} />
        <Field label="From" type="datetime-local" {...typed("from")} />
        <Field label="To" type="datetime-local" {...typed("to")} />
        <SelectField label="Recommendation" {...chosen("recommendation")}>
          <option value="">Any</option>
          <option value="block">Block</option>
          <option value="review">Review</option>
          <option value="allow">Allow</option>
        </SelectField>
        <Field label="Minimum probability" type="number" min={0} max={100} step={1} inputMode="numeric" {...typed("min_probability")} />
        <Field label="Category" list="calls-categories" placeholder="e.g. robocall" {...typed("category")} />
        <SelectField label="Status" {...chosen("status")}>
          <option value="">Any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s.replace(/_/g, " ")}
            </option>
          ))}
        </SelectField>
        <SelectField label="Analysis" {...chosen("analysis_status")}>
          <option value="">Any</option>
          {ANALYSIS_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </SelectField>
        <SelectField label="Caller ID verification" {...chosen("identity_status")}>
          <option value="">Any</option>
          {IDENTITY_STATUSES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </SelectField>
        <SelectField label="Attestation" {...chosen("attestation")}>
          <option value="">Any</option>
          <option value="A">A (full)</option>
          <option value="B">B (partial)</option>
          <option value="C">C (gateway)</option>
        </SelectField>
        <SelectField label="Origin" {...chosen("origin")}>
          <option value="">Any</option>
          <option value="sip">SIP trunk</option>
          <option value="dialer">Web dialer</option>
          <option value="test">Test call</option>
        </SelectField>
        <SelectField
          label="Destination"
          hint={destinations.isError ? "The destinations could not be listed." : undefined}
          {...chosen("destination_id")}
        >
          <option value="">Any</option>
          {destinations.data?.map((d) => (
            <option key={d.id} value={d.id}>
              {d.label || `${d.host}:${d.port}`}
            </option>
          ))}
          {url.get("destination_id") && destinations.data && !destinations.data.some((d) => d.id === url.get("destination_id")) ? (
            <option value={url.get("destination_id")}>{url.get("destination_id")}</option>
          ) : null}
        </SelectField>
        <SelectField label="Route alert" {...chosen("route_alert")}>
          <option value="">Any</option>
          <option value="true">Raised</option>
          <option value="false">Not raised</option>
        </SelectField>
        <SelectField label="Sampled" {...chosen("sampled")}>
          <option value="">Any</option>
          <option value="true">Sampled</option>
          <option value="false">Not sampled</option>
        </SelectField>
        <Field label="Claimed entity" placeholder="Exactly as listed" {...typed("entity")} />
        <Field label="Add a keyword" placeholder="e.g. gift card" {...typed("keyword")} />
      </div>
      <datalist id="calls-categories">
        {CATEGORIES.map((c) => (
          <option key={c} value={c} />
        ))}
      </datalist>
      <div className="actions">
        <button type="submit" className="primary">
          Apply
        </button>
        <button type="button" onClick={clear} disabled={!hasFilters(url)}>
          Clear filters
        </button>
      </div>
    </form>
  );
}
