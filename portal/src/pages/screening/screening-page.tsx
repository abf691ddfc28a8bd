// Screening (/app/screening): what the platform checks of each call from your trunk before the
// phone rings, from signalling alone: the caller ID's STIR/SHAKEN attestation, number checks and
// velocity rules, each with an action (off, flag, refuse with 603, divert). The page: what the
// rules did so far (refused, diverted, flagged), the rules, and the do-not-originate list.
import { Link } from "wouter";
import { ErrorBox, Loading, PageTitle } from "../../components/ui.tsx";
import { when } from "../../lib/format.ts";
import { useStats } from "./api.ts";
import { DoNotOriginate } from "./do-not-originate.tsx";
import { RulesForm } from "./rules-form.tsx";
import { RULES } from "./rules.ts";

export default function ScreeningPage() {
  return (
    <div className="screening-area">
      <PageTitle>Screening</PageTitle>
      <p className="muted">
        Before a call from your trunk rings, the platform reads its signalling: whether the caller ID is signed and verified (STIR/SHAKEN),
        whether the number makes sense, and how fast its caller is dialling. Each rule below can flag the call (the flag stays on the call
        and its verdict), refuse it (the caller gets 603 Decline with the rule&apos;s name), or divert it to another destination. Every call
        shows what screening found on its page, and the <Link href="/calls">calls list</Link> filters by the caller ID&apos;s verification.
      </p>
      <Stats />
      <RulesForm />
      <DoNotOriginate />
    </div>
  );
}

function Stats() {
  const stats = useStats();
  return (
    <section className="card" aria-labelledby="screening-stats">
      <h2 id="screening-stats">What the rules did</h2>
      {stats.isPending ? <Loading what="Reading what the rules did" /> : null}
      <ErrorBox error={stats.error} />
      {stats.data ? (
        <div className="table-wrap">
          <table aria-label="Calls refused, diverted and flagged per rule">
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col" className="num">
                  Refused
                </th>
                <th scope="col" className="num">
                  Diverted
                </th>
                <th scope="col" className="num">
                  Flagged
                </th>
                <th scope="col">Last matched</th>
              </tr>
            </thead>
            <tbody>
              {RULES.map((r) => (
                <tr key={r.name} data-testid="screening-stats-row" data-rule={r.name}>
                  <th scope="row">{r.title}</th>
                  <td className="num">{(stats.data[r.name]?.refused ?? 0).toLocaleString()}</td>
                  <td className="num">{(stats.data[r.name]?.diverted ?? 0).toLocaleString()}</td>
                  <td className="num">{(stats.data[r.name]?.flagged ?? 0).toLocaleString()}</td>
                  <td>{when(stats.data[r.name]?.last_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
