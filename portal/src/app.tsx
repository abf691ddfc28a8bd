// The pages and who may see them: signed out, the sign-in and sign-up pages (any other address
// signs in first and comes back); signed in with a temporary password, only the forced change;
// otherwise the portal's layout with every page, each loaded when first opened.
import { lazy, Suspense, useEffect } from "react";
import { Redirect, Route, Switch, useLocation } from "wouter";
import { Layout } from "./components/layout.tsx";
import { ErrorBox, Loading } from "./components/ui.tsx";
import { pageView } from "./lib/events.ts";
import { ForcedPasswordChange } from "./pages/auth/forced-password-change.tsx";
import { SignInPage } from "./pages/auth/sign-in.tsx";
import { SignUpPage } from "./pages/auth/sign-up.tsx";
import { useAuthConfig, useMe, useSession } from "./session/hooks.ts";
import { watchIdle } from "./session/idle.ts";

const DashboardPage = lazy(() => import("./pages/dashboard/dashboard-page.tsx"));
const CallsPage = lazy(() => import("./pages/calls/calls-page.tsx"));
const CallPage = lazy(() => import("./pages/call/call-page.tsx"));
const LivePage = lazy(() => import("./pages/live/live-page.tsx"));
const LiveCallPage = lazy(() => import("./pages/live/live-call-page.tsx"));
const CasesPage = lazy(() => import("./pages/cases/cases-page.tsx"));
const CasePage = lazy(() => import("./pages/cases/case-page.tsx"));
const TicketsPage = lazy(() => import("./pages/support/tickets-page.tsx"));
const TicketPage = lazy(() => import("./pages/support/ticket-page.tsx"));
const TestCallsPage = lazy(() => import("./pages/test-calls/test-calls-page.tsx"));
const ConfirmTestCallPage = lazy(() => import("./pages/test-calls/confirm-page.tsx"));
const CliPage = lazy(() => import("./pages/cli/cli-page.tsx"));
const HostedNumbersPage = lazy(() => import("./pages/hosted-numbers/hosted-numbers-page.tsx"));
const ScreeningPage = lazy(() => import("./pages/screening/screening-page.tsx"));
const AccountPage = lazy(() => import("./pages/account/account-page.tsx"));
const TrunkPage = lazy(() => import("./pages/trunk/trunk-page.tsx"));
const AutomationPage = lazy(() => import("./pages/automation/automation-page.tsx"));
const AlertsPage = lazy(() => import("./pages/alerts/alerts-page.tsx"));
const BillingPage = lazy(() => import("./pages/billing/billing-page.tsx"));
const TeamPage = lazy(() => import("./pages/team/team-page.tsx"));
const SettingsPage = lazy(() => import("./pages/settings/settings-page.tsx"));

export function App() {
  const { status } = useSession();
  if (status === "loading") return <Loading what="Opening the portal" />;
  if (status === "signed_out") return <SignedOut />;
  return <SignedIn />;
}

function SignedOut() {
  const [location] = useLocation();
  return (
    <Switch>
      <Route path="/sign-up" component={SignUpPage} />
      <Route path="/sign-in">
        <SignInPage />
      </Route>
      {/* Any other page (a confirm_url, a link from the desktop client) signs in and comes back. */}
      <Route>
        <SignInPage returnTo={location} />
      </Route>
    </Switch>
  );
}

function SignedIn() {
  const me = useMe();
  const config = useAuthConfig();
  const [location] = useLocation();
  useEffect(() => pageView(location), [location]);
  useEffect(() => watchIdle(config.data?.session_idle_timeout_min ?? 0), [config.data?.session_idle_timeout_min]);

  if (me.isPending) return <Loading what="Opening the portal" />;
  if (me.isError) return <ErrorBox error={me.error} />;
  if (me.data.must_change_password) return <ForcedPasswordChange />;
  return (
    <Layout me={me.data}>
      <Suspense fallback={<Loading />}>
        <Switch>
          <Route path="/" component={DashboardPage} />
          <Route path="/calls" component={CallsPage} />
          <Route path="/calls/:id" component={CallPage} />
          <Route path="/live" component={LivePage} />
          <Route path="/live/:id" component={LiveCallPage} />
          <Route path="/cases" component={CasesPage} />
          <Route path="/cases/:id" component={CasePage} />
          <Route path="/support" component={TicketsPage} />
          <Route path="/support/:id" component={TicketPage} />
          <Route path="/test-calls" component={TestCallsPage} />
          <Route path="/test-calls/:id/confirm" component={ConfirmTestCallPage} />
          <Route path="/cli" component={CliPage} />
          <Route path="/hosted-numbers" component={HostedNumbersPage} />
          <Route path="/screening" component={ScreeningPage} />
          <Route path="/account" component={AccountPage} />
          <Route path="/trunk" component={TrunkPage} />
          <Route path="/automation" component={AutomationPage} />
          <Route path="/alerts" component={AlertsPage} />
          <Route path="/billing" component={BillingPage} />
          <Route path="/team" component={TeamPage} />
          <Route path="/settings" component={SettingsPage} />
          <Route path="/sign-in">
            <Redirect to="/" />
          </Route>
          <Route path="/sign-up">
            <Redirect to="/" />
          </Route>
          <Route>
            <section>
              <h1>Page not found</h1>
              <p>There is no portal page at this address.</p>
            </section>
          </Route>
        </Switch>
      </Suspense>
    </Layout>
  );
}
