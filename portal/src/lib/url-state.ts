// Filters and pages live in the URL's query, so a link to a filtered list can be shared and the
// browser's back button undoes a filter.
import { useSearchParams } from "wouter";

export function useUrlState() {
  const [params, setParams] = useSearchParams();
  const get = (name: string) => params.get(name) ?? "";
  const getAll = (name: string) => params.getAll(name);
  /** Sets (or with "" / [] removes) the named values; any filter change goes back to the first page. */
  const set = (values: Record<string, string | string[] | number | null | undefined>, options: { keepOffset?: boolean } = {}) => {
    const next = new URLSearchParams(params);
    for (const [name, value] of Object.entries(values)) {
      next.delete(name);
      for (const v of Array.isArray(value) ? value : [value]) if (v !== null && v !== undefined && v !== "") next.append(name, String(v));
    }
    if (!options.keepOffset && !("offset" in values)) next.delete("offset");
    setParams(next);
  };
  return { params, get, getAll, set };
}
