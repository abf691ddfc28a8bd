// The entities callers claimed and the verdicts' keywords of the last days (GET /calls/entities,
// GET /calls/keywords) as chips: pressing one filters the list by it, pressing it again lifts that
// filter. A filter in the URL that is not among the most frequent still shows, pressed.
import { useQuery } from "@tanstack/react-query";
import { api, must } from "../../api/client.ts";
import { ErrorBox, SelectField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import type { useUrlState } from "../../lib/url-state.ts";

type Url = ReturnType<typeof useUrlState>;

const DAY_CHOICES = [7, 30, 90, 365] as const;
const DEFAULT_DAYS = 30;
const TOP = 20;

function daysOf(raw: string): number {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= 365 ? n : DEFAULT_DAYS;
}

type Chip = { value: string; count: number | null };

/** The counted values, then any pressed value the counts leave out. */
function chipsOf(counted: Chip[], pressed: string[]): Chip[] {
  const seen = new Set(counted.map((c) => c.value));
  return [...counted, ...pressed.filter((p) => !seen.has(p)).map((value) => ({ value, count: null }))];
}

function ChipGroup({
  title,
  id,
  chips,
  pressed,
  onToggle,
  loading,
  error,
  days,
}: {
  title: string;
  id: string;
  chips: Chip[];
  pressed: string[];
  onToggle: (value: string) => void;
  loading: boolean;
  error: unknown;
  days: number;
}) {
  return (
    <div className="calls-chip-group">
      <h3 id={id}>{title}</h3>
      <ErrorBox error={error} />
      {chips.length ? (
        <div className="chips" role="group" aria-labelledby={id}>
          {chips.map((chip) => (
            <button key={chip.value} type="button" aria-pressed={pressed.includes(chip.value)} onClick={() => onToggle(chip.value)}>
              {chip.value}
              {chip.count === null ? null : (
                <span className="calls-chip-count">
                  {" "}
                  {chip.count.toLocaleString()}
                  <span className="visually-hidden"> calls</span>
                </span>
              )}
            </button>
          ))}
        </div>
      ) : loading ? (
        <p className="muted">Loading…</p>
      ) : error ? null : (
        <p className="muted">None in the last {days} days.</p>
      )}
    </div>
  );
}

export function TrendChips({ url }: { url: Url }) {
  const days = daysOf(url.get("days"));
  const entities = useQuery({
    queryKey: ["call-entities", days],
    queryFn: () => must(api.GET("/calls/entities", { params: { query: { days, limit: TOP } } })),
    staleTime: 60_000,
  });
  const keywords = useQuery({
    queryKey: ["call-keywords", days],
    queryFn: () => must(api.GET("/calls/keywords", { params: { query: { days, limit: TOP } } })),
    staleTime: 60_000,
  });
  const entity = url.get("entity");
  const pressedKeywords = url.getAll("keyword");

  const toggleEntity = (value: string) => {
    url.set({ entity: entity === value ? "" : value });
    featureUsed("calls.filter");
  };
  const toggleKeyword = (value: string) => {
    url.set({
      keyword: pressedKeywords.includes(value) ? pressedKeywords.filter((k) => k !== value) : [...pressedKeywords, value],
    });
    featureUsed("calls.filter");
  };

  return (
    <div className="calls-trends">
      <div className="calls-trend-days">
        <SelectField
          label="Entities and keywords over the last"
          name="days"
          value={String(days)}
          onChange={(e) => url.set({ days: Number(e.target.value) === DEFAULT_DAYS ? "" : e.target.value }, { keepOffset: true })}
        >
          {DAY_CHOICES.map((n) => (
            <option key={n} value={n}>
              {n} days
            </option>
          ))}
        </SelectField>
      </div>
      <ChipGroup
        title="Entities callers claimed"
        id="calls-entities-h"
        chips={chipsOf(entities.data?.map((e) => ({ value: e.entity, count: e.count })) ?? [], entity ? [entity] : [])}
        pressed={entity ? [entity] : []}
        onToggle={toggleEntity}
        loading={entities.isPending}
        error={entities.error}
        days={days}
      />
      <ChipGroup
        title="Keywords"
        id="calls-keywords-h"
        chips={chipsOf(keywords.data?.map((k) => ({ value: k.keyword, count: k.count })) ?? [], pressedKeywords)}
        pressed={pressedKeywords}
        onToggle={toggleKeyword}
        loading={keywords.isPending}
        error={keywords.error}
        days={days}
      />
    </div>
  );
}
