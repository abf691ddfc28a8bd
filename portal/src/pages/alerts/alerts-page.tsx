// Alerts (/app/alerts): the alert rules with their test, the connected channels they deliver to,
// and the account's signed webhook with its deliveries.
import { PageTitle } from "../../components/ui.tsx";
import { Channels } from "./channels.tsx";
import { AlertRules } from "./rules.tsx";
import { WebhookSection } from "./webhook.tsx";

export default function AlertsPage() {
  return (
    <div className="alerts-area">
      <PageTitle>Alerts</PageTitle>
      <AlertRules />
      <Channels />
      <WebhookSection />
    </div>
  );
}
