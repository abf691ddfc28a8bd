// The authorization page: sign in (e-mail and password, or a portal access token the portal
// posts), then consent, naming the client, where it will receive the authorization, and each
// scope. Plain HTML with no script, every value escaped; the forms carry the CSRF token.
import { OAUTH_SCOPES, type OAuthScope } from "../resources/oauth.ts";
import type { AuthorizationRequest } from "./authorization-request.ts";

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

const hidden = (fields: Record<string, string | undefined>) =>
  Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value!)}">`)
    .join("\n");

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · Call Shield</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.4rem}.box{border:1px solid #d0d7de;border-radius:8px;padding:1rem 1.25rem;margin:1rem 0}
label{display:block;margin:.6rem 0}input[type=email],input[type=password],input[type=text]{width:100%;padding:.45rem;box-sizing:border-box}
button{padding:.5rem 1.1rem;margin-right:.5rem;font-size:1rem}.error{color:#b42318}.muted{color:#57606a;font-size:.9rem}
</style></head><body>
${body}
</body></html>`;
}

export type PageContext = { csrf: string; fields: Record<string, string | undefined> };

/** A problem that cannot go back to the client. */
export const errorPage = (message: string) =>
  layout("Authorization failed", `<h1>This authorization cannot go on</h1><p class="error">${escape(message)}</p>`);

const clientLabel = (request: AuthorizationRequest) => request.client.clientName ?? request.client.clientId;
const redirectHost = (request: AuthorizationRequest) => new URL(request.redirectUri).host || request.redirectUri;

export function signInPage(request: AuthorizationRequest, page: PageContext, error?: string, signUpHref: string | null = null): string {
  return layout(
    "Sign in",
    `<h1>Sign in to authorize ${escape(clientLabel(request))}</h1>
<p>An application is asking to act on your Call Shield account. Sign in first; you will see what it asks for before anything is granted.</p>
${error ? `<p class="error" role="alert">${escape(error)}</p>` : ""}
<form method="post" class="box">
${hidden({ ...page.fields, csrf: page.csrf, action: "sign_in" })}
<label>E-mail <input type="email" name="email" autocomplete="username" required></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>
<p class="muted">Accounts with a second factor: open this page from the portal, which signs you in with your session.</p>
${signUpHref ? `<p>No Call Shield account yet? <a href="${escape(signUpHref)}">Create one</a>; you come back here once it exists.</p>` : ""}`,
  );
}

export function consentPage(request: AuthorizationRequest, page: PageContext, who: string): string {
  const scopes = request.scopes
    .map(
      (scope) =>
        `<label><input type="checkbox" name="grant_scope" value="${escape(scope)}" checked> ${escape(OAUTH_SCOPES[scope as OAuthScope] ?? scope)} <span class="muted">(${escape(scope)})</span></label>`,
    )
    .join("\n");
  const viaDocument = request.client.clientId.startsWith("https://")
    ? `<p class="muted">Identified by its metadata document at ${escape(request.client.clientId)}.</p>`
    : `<p class="muted">Client id ${escape(request.client.clientId)} (registered itself; its name is its own claim).</p>`;
  return layout(
    "Authorize",
    `<h1>Authorize ${escape(clientLabel(request))}?</h1>
<p>Signed in as <strong>${escape(who)}</strong>. <strong>${escape(clientLabel(request))}</strong> will receive access at
<strong>${escape(redirectHost(request))}</strong> and act for you with your role, only within what you tick:</p>
${viaDocument}
<form method="post" class="box">
${hidden({ ...page.fields, csrf: page.csrf })}
${scopes}
<p class="muted">It never sees your password. Test calls it asks for ring only after you confirm them in the portal. You can revoke it at any time under Authorised agents.</p>
<button type="submit" name="action" value="approve">Authorize</button>
<button type="submit" name="action" value="deny">Deny</button>
</form>`,
  );
}
