// The Terms of service: the version the account accepted and the one in force; the owner, signed
// in in person, accepts the current one when they differ (POST /customer/terms/accept).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, must } from "../../api/client.ts";
import { ErrorBox, Loading } from "../../components/ui.tsx";
import { featureUsed } from "../../lib/events.ts";
import { useMe, usePermissions } from "../../session/hooks.ts";

export function Terms() {
  const me = useMe();
  const { owner, impersonating } = usePermissions();
  const queries = useQueryClient();
  const accept = useMutation({
    mutationFn: () => must(api.POST("/customer/terms/accept", {})),
    onSuccess: () => {
      featureUsed("settings.terms_accept");
      return queries.invalidateQueries({ queryKey: ["me"] });
    },
  });
  if (!me.data) return <Loading />;
  const accepted = me.data.terms_version ?? null;
  const current = me.data.terms_current_version ?? null;
  const behind = !!current && accepted !== current;
  return (
    <section className="card" aria-labelledby="terms-heading">
      <h2 id="terms-heading">Terms of service</h2>
      <dl className="facts">
        <dt>Accepted</dt>
        <dd data-testid="terms-accepted">{accepted ? `Version ${accepted}` : "Not yet"}</dd>
        <dt>In force</dt>
        <dd>{current ? `Version ${current}` : "—"}</dd>
      </dl>
      {!behind ? <p className="muted">The account has accepted the Terms in force.</p> : null}
      {behind && !owner ? <p>The account&apos;s owner accepts the new Terms.</p> : null}
      {behind && owner ? (
        <div className="actions">
          <button type="button" className="primary" disabled={accept.isPending || impersonating} onClick={() => accept.mutate()}>
            Accept version {current}
          </button>
          {impersonating ? <span className="muted">Not while acting as the account: the owner accepts them in person.</span> : null}
        </div>
      ) : null}
      <ErrorBox error={accept.error} />
    </section>
  );
}
