// The frame around every signed-in page: a skip link, the navigation, who is signed in with sign
// out (here, or everywhere), and the banners the account needs: an administrator acting as the
// account, new Terms to accept, the skippable profile questions.
import type { ReactNode } from "react";
import { Link, useLocation, useRoute } from "wouter";
import type { Schemas } from "../api/client.ts";
import { session } from "../session/session.ts";
import { ImpersonationBanner, ProfileQuestions, TermsBanner } from "./banners.tsx";

const NAV = [
  ["/", "Dashboard"],
  ["/calls", "Calls"],
  ["/live", "Live"],
  ["/cases", "Cases"],
  ["/support", "Support"],
  ["/test-calls", "Test calls"],
  ["/cli", "Caller ID checks"],
  ["/account", "Account"],
] as const;

/** Where the account is set up and paid for (issue 29). */
const SETUP = [
  ["/trunk", "Trunk"],
  ["/automation", "Automation"],
  ["/screening", "Screening"],
  ["/alerts", "Alerts"],
  ["/billing", "Billing"],
  ["/hosted-numbers", "Hosted numbers"],
  ["/team", "Team and access"],
  ["/settings", "Settings"],
] as const;

function NavLink({ href, children }: { href: string; children: ReactNode }) {
  const [exact] = useRoute(href);
  const [nested] = useRoute(href === "/" ? "/__never" : `${href}/*?`);
  const active = exact || nested;
  return (
    <Link href={href} className={active ? "active" : undefined} aria-current={active ? "page" : undefined}>
      {children}
    </Link>
  );
}

export function Layout({ me, children }: { me: Schemas["Account"]; children: ReactNode }) {
  const [, navigate] = useLocation();
  // Signing out leads to the sign-in page, so whoever signs in next starts at the dashboard rather
  // than on the page the last person left open.
  const signOut = () => void session.signOut().then(() => navigate("/sign-in", { replace: true }));
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link href="/" className="brand">
          Call Shield
        </Link>
        <nav aria-label="Portal">
          {NAV.map(([href, label]) => (
            <NavLink key={href} href={href}>
              {label}
            </NavLink>
          ))}
        </nav>
        <nav aria-label="Setup" className="setup">
          {SETUP.map(([href, label]) => (
            <NavLink key={href} href={href}>
              {label}
            </NavLink>
          ))}
        </nav>
        <div className="who">
          <span title={me.company ?? undefined}>{me.user?.email ?? me.email}</span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <ImpersonationBanner me={me} />
      <TermsBanner me={me} />
      <main id="main" tabIndex={-1}>
        <ProfileQuestions me={me} />
        {children}
      </main>
    </>
  );
}
