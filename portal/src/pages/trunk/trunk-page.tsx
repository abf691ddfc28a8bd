// The trunk (issue 29): where to send calls, the whitelist of source addresses with proof of
// control for wide ranges, the destinations calls go on to (monitor, secrets, voice-AI agents)
// and the routing rules, with the answer to "which destination would take this number?".
import { PageTitle } from "../../components/ui.tsx";
import { DestinationsSection } from "./destinations.tsx";
import { NetworkInfoSection } from "./network.tsx";
import { RoutingSection } from "./routing.tsx";
import { WhitelistSection } from "./whitelist.tsx";

export default function TrunkPage() {
  return (
    <div className="trunk-area">
      <PageTitle>Trunk</PageTitle>
      <nav className="trunk-toc" aria-label="Trunk sections">
        <a href="#trunk-network">Where to send calls</a>
        <a href="#trunk-whitelist">Whitelist</a>
        <a href="#trunk-destinations">Destinations</a>
        <a href="#trunk-routing">Routing rules</a>
      </nav>
      <NetworkInfoSection />
      <WhitelistSection />
      <DestinationsSection />
      <RoutingSection />
    </div>
  );
}
