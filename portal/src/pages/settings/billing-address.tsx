// The tax ID (GET/PUT /customer/tax-id) and the billing address (GET/PUT /customer/billing-address),
// beside it the tax the address brings: the saved one as the API reports it, and what a changed
// address would bring once saved.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, must, type Schemas } from "../../api/client.ts";
import { ErrorBox, Field, fieldError, Loading, SelectField } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { previewTax, PROVINCES, taxWords } from "./tax-rule.ts";

type Address = Schemas["BillingAddress"];

const TAX_ID_KEY = ["settings", "tax-id"];
const ADDRESS_KEY = ["settings", "billing-address"];

export function TaxId() {
  const taxId = useQuery({ queryKey: TAX_ID_KEY, queryFn: () => must(api.GET("/customer/tax-id")) });
  return (
    <section className="card" aria-labelledby="tax-id-heading">
      <h2 id="tax-id-heading">Tax ID</h2>
      {taxId.isPending ? <Loading what="Loading the tax ID" /> : null}
      <ErrorBox error={taxId.error} />
      {taxId.data ? <TaxIdForm saved={taxId.data.tax_id} /> : null}
    </section>
  );
}

function TaxIdForm({ saved }: { saved: string | null }) {
  const queries = useQueryClient();
  const [value, setValue] = useState(saved ?? "");
  const save = useMutation({
    mutationFn: () => must(api.PUT("/customer/tax-id", { body: { tax_id: value.trim() || null } })),
    onSuccess: (data) => {
      featureUsed("settings.tax_id");
      queries.setQueryData(TAX_ID_KEY, data);
      setValue(data.tax_id ?? "");
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Tax ID">
      <Field
        label="Tax ID or VAT number"
        name="tax_id"
        maxLength={64}
        autoComplete="off"
        value={value}
        onChange={(e) => setValue(e.target.value)}
        hint="Shown on invoices. Leave it empty to clear it."
        error={save.error}
      />
      <button type="submit" className="primary" disabled={save.isPending}>
        Save the tax ID
      </button>
      {save.isSuccess ? <p role="status">{save.data.tax_id ? "Saved." : "Cleared."}</p> : null}
      {fieldError(save.error, "tax_id") ? null : <ErrorBox error={save.error} />}
    </form>
  );
}

export function BillingAddress() {
  const address = useQuery({ queryKey: ADDRESS_KEY, queryFn: () => must(api.GET("/customer/billing-address")) });
  return (
    <section className="card" aria-labelledby="address-heading">
      <h2 id="address-heading">Billing address</h2>
      {address.isPending ? <Loading what="Loading the billing address" /> : null}
      <ErrorBox error={address.error} />
      {address.data ? <AddressForm saved={address.data} /> : null}
    </section>
  );
}

const FIELDS = ["name", "line1", "line2", "city", "postal_code", "country", "province"] as const;
type Values = Record<(typeof FIELDS)[number], string>;

function AddressForm({ saved }: { saved: Address }) {
  const queries = useQueryClient();
  const initial = Object.fromEntries(FIELDS.map((f) => [f, saved[f] ?? ""])) as Values;
  const [values, setValues] = useState<Values>(initial);
  const set = (name: keyof Values) => (e: { target: { value: string } }) => setValues({ ...values, [name]: e.target.value });
  const save = useMutation({
    mutationFn: () =>
      must(
        api.PUT("/customer/billing-address", {
          body: Object.fromEntries(FIELDS.map((f) => [f, values[f].trim() || null])),
        }),
      ),
    onSuccess: (data) => {
      featureUsed("settings.billing_address");
      queries.setQueryData(ADDRESS_KEY, data);
      setValues(Object.fromEntries(FIELDS.map((f) => [f, data[f] ?? ""])) as Values);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const canada = values.country.trim().toUpperCase() === "CA";
  const changed = FIELDS.some((f) => values[f].trim().toUpperCase() !== (saved[f] ?? "").toUpperCase());
  const named = FIELDS.some((f) => fieldError(save.error, f));
  return (
    <div className="cols address-cols">
      <form onSubmit={submit} aria-label="Billing address">
        <Field
          label="Name on invoices"
          name="name"
          autoComplete="organization"
          value={values.name}
          onChange={set("name")}
          error={save.error}
        />
        <Field
          label="Address line 1"
          name="line1"
          autoComplete="address-line1"
          value={values.line1}
          onChange={set("line1")}
          error={save.error}
        />
        <Field
          label="Address line 2"
          name="line2"
          autoComplete="address-line2"
          value={values.line2}
          onChange={set("line2")}
          error={save.error}
        />
        <div className="grid">
          <Field label="City" name="city" autoComplete="address-level2" value={values.city} onChange={set("city")} error={save.error} />
          <Field
            label="Postal code"
            name="postal_code"
            autoComplete="postal-code"
            value={values.postal_code}
            onChange={set("postal_code")}
            error={save.error}
          />
        </div>
        <div className="grid">
          <Field
            label="Country"
            name="country"
            autoComplete="country"
            maxLength={2}
            value={values.country}
            onChange={set("country")}
            hint="Two letters: CA, US, GB…"
            error={save.error}
          />
          {canada ? (
            <SelectField
              label="Province or territory"
              name="province"
              value={values.province.toUpperCase()}
              onChange={set("province")}
              error={save.error}
            >
              <option value="">Not set</option>
              {PROVINCES.map(([code, name]) => (
                <option key={code} value={code}>
                  {name}
                </option>
              ))}
            </SelectField>
          ) : (
            <Field
              label="State or province"
              name="province"
              autoComplete="address-level1"
              maxLength={3}
              value={values.province}
              onChange={set("province")}
              hint="Its code, if any: NY, ON…"
              error={save.error}
            />
          )}
        </div>
        <button type="submit" className="primary" disabled={save.isPending}>
          Save the address
        </button>
        {save.isSuccess && !changed ? <p role="status">Saved.</p> : null}
        {named ? null : <ErrorBox error={save.error} />}
      </form>
      <aside className="tax-box" aria-labelledby="tax-heading">
        <h3 id="tax-heading">Tax on invoices</h3>
        <p data-testid="tax-saved" data-rate={saved.tax_rate_pct}>
          {taxWords(saved, saved.country, saved.province)}
        </p>
        {changed ? (
          <p className="muted" data-testid="tax-preview">
            Once saved: {taxWords(previewTax(values.country, values.province), values.country, values.province)}
          </p>
        ) : null}
        <p className="muted">
          Outside Canada, or with no country, invoices carry no tax. In Canada: 13% HST in Ontario; 15% HST in New Brunswick, Newfoundland
          and Labrador, Nova Scotia and Prince Edward Island; the 5% federal GST in every other province and territory, and when the
          province is not set.
        </p>
      </aside>
    </div>
  );
}
