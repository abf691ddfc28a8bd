// Team and access (/app/team): who may use the account and with what. The users (invite, resend,
// deactivate; the account's user limit), API keys (created and shown once, revoked), the owner's
// passkeys (the account's second factor; a member's reset is on the user's row), the AI agents
// authorised through OAuth, and the verified caller IDs. Changes are the owner's: a member sees
// the lists (and their own agents and numbers); an administrator acting as the account sees the
// actions the API refuses to them disabled and marked.
import { Link } from "wouter";
import { PageTitle } from "../../components/ui.tsx";
import { usePermissions } from "../../session/hooks.ts";
import { Agents } from "./agents.tsx";
import { ApiKeys } from "./api-keys.tsx";
import { Passkeys } from "./passkeys.tsx";
import { Users } from "./users.tsx";
import { VerifiedNumbers } from "./verified-numbers.tsx";

export default function TeamPage() {
  const { owner, impersonating } = usePermissions();
  return (
    <div className="team-area">
      <PageTitle>Team and access</PageTitle>
      <p className="muted">
        {owner
          ? "Who may use the account and with what: people, API keys, passkeys, AI agents and the numbers you may call from."
          : "Who may use the account and with what. The account's owner makes the changes; you can revoke your own AI agents and verify caller IDs."}{" "}
        Your own password is on <Link href="/account">your account page</Link>.
      </p>
      {impersonating ? (
        <p className="banner warn team-acting" role="note">
          You are acting as the account: inviting, resetting and deactivating people, creating and revoking API keys and changing passkeys
          are not allowed from here.
        </p>
      ) : null}
      <Users />
      <ApiKeys />
      <Passkeys />
      <Agents />
      <VerifiedNumbers />
    </div>
  );
}
