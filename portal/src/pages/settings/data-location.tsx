// Where recordings and captures are stored and where the media relay runs (GET/PUT
// /customer/data-location): only the regions the platform offers; calls from now on use them.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { ErrorBox, fieldError, Loading, SelectField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";

const KEY = ["settings", "data-location"];

const REGION_NAMES: Record<string, string> = {
  ca: "Canada",
  us: "United States",
  eu: "European Union",
  uk: "United Kingdom",
  au: "Australia",
};
const regionName = (code: string) => (REGION_NAMES[code] ? `${REGION_NAMES[code]} (${code})` : code);

export function DataLocation() {
  const location = useQuery({ queryKey: KEY, queryFn: () => must(api.GET("/customer/data-location")) });
  return (
    <section className="card" aria-labelledby="location-heading">
      <h2 id="location-heading">Data and media location</h2>
      <p className="muted">A change applies to calls from now on; recordings already stored stay where they are.</p>
      {location.isPending ? <Loading what="Loading the data location" /> : null}
      <ErrorBox error={location.error} />
      {location.data ? <LocationForm saved={location.data} /> : null}
    </section>
  );
}

function LocationForm({ saved }: { saved: Schemas["DataLocation"] }) {
  const queries = useQueryClient();
  const [data, setData] = useState(saved.data_region);
  const [media, setMedia] = useState(saved.media_region);
  const save = useMutation({
    mutationFn: () => must(api.PUT("/customer/data-location", { body: { data_region: data, media_region: media } })),
    onSuccess: (next) => {
      featureUsed("settings.data_location");
      queries.setQueryData(KEY, next);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  // The saved region stays offered even if the platform no longer lists it.
  const options = (list: string[], current: string) => (list.includes(current) ? list : [current, ...list]);
  return (
    <form onSubmit={submit} aria-label="Data and media location">
      <div className="grid">
        <SelectField
          label="Recordings and captures stored in"
          name="data_region"
          value={data}
          onChange={(e) => setData(e.target.value)}
          error={save.error}
        >
          {options(saved.data_regions, saved.data_region).map((r) => (
            <option key={r} value={r}>
              {regionName(r)}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Media relayed in"
          name="media_region"
          value={media}
          onChange={(e) => setMedia(e.target.value)}
          error={save.error}
        >
          {options(saved.media_regions, saved.media_region).map((r) => (
            <option key={r} value={r}>
              {regionName(r)}
            </option>
          ))}
        </SelectField>
      </div>
      <button type="submit" className="primary" disabled={save.isPending || (data === saved.data_region && media === saved.media_region)}>
        Save the location
      </button>
      {save.isSuccess ? <p role="status">Saved: calls from now on use these regions.</p> : null}
      {fieldError(save.error, "data_region") || fieldError(save.error, "media_region") ? null : <ErrorBox error={save.error} />}
    </form>
  );
}
