// Where to send calls (GET /customer/network-info): the ingress host, port and transports, and
// what the service does with what arrives there.
import { ErrorBox, Loading } from "../../components/ui.tsx";
import { useNetworkInfo } from "./shared.tsx";

export function NetworkInfoSection() {
  const info = useNetworkInfo();
  return (
    <section className="card" aria-labelledby="trunk-network">
      <h2 id="trunk-network">Where to send calls</h2>
      {info.isPending ? <Loading what="Loading the network information" /> : null}
      <ErrorBox error={info.error} />
      {info.data ? (
        <>
          <dl className="facts" data-testid="network-info">
            <dt>Host</dt>
            <dd>
              <code>{info.data.ingress_host}</code>
            </dd>
            <dt>Port</dt>
            <dd>
              <code>{info.data.ingress_port}</code>
            </dd>
            <dt>Transports</dt>
            <dd>{info.data.transports.map((t) => t.toUpperCase()).join(", ")}</dd>
            <dt>Request URI</dt>
            <dd>
              <code>
                sip:&lt;number&gt;@{info.data.ingress_host}:{info.data.ingress_port}
              </code>
            </dd>
          </dl>
          <p className="muted">
            Calls are admitted only from the addresses on your whitelist below; each goes on to the destination its whitelist entry names,
            else to the destination of the first routing rule that matches the number, else to your default destination.
          </p>
        </>
      ) : null}
    </section>
  );
}
