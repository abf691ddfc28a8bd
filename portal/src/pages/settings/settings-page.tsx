// Settings (issue 29): the company profile, the tax ID, the billing address with the tax it
// brings, where data and media live, the call features (switched by the owner) with the way to the
// web dialer, and the Terms.
import { PageTitle } from "../../components/ui.tsx";
import { BillingAddress, TaxId } from "./billing-address.tsx";
import { CallFeatures } from "./call-features.tsx";
import { Company } from "./company.tsx";
import { DataLocation } from "./data-location.tsx";
import { Terms } from "./terms.tsx";

export default function SettingsPage() {
  return (
    <div className="settings-area">
      <PageTitle>Settings</PageTitle>
      <Company />
      <TaxId />
      <BillingAddress />
      <DataLocation />
      <CallFeatures />
      <Terms />
    </div>
  );
}
