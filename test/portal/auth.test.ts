// Signing in to the portal in Chromium, as the spec designs the browser session: a password (a
// wrong one shows the API's message), the session kept across a reload by the refresh cookie and
// ended by signing out, a passkey as the second step (a CDP virtual authenticator), a member's
// forced password change at first sign-in, a deep link opened while signed out, and sign-up.
// Each page passed is checked with axe-core and saved at 1440 and 390 px (test-results/portal/).
import { describe, expect, it } from "vitest";
import {
  browserFor,
  checkA11y,
  inviteMember,
  newOwner,
  onPage,
  open,
  request,
  screenshots,
  signedIn,
  signIn,
  signOut,
  submitSignIn,
  virtualAuthenticator,
} from "./fixtures.ts";

const SIGN_IN = { level: 1, name: "Sign in to Call Shield" } as const;

describe("signing in to the portal", () => {
  it("signs in with a password and lands on the dashboard; a wrong password shows the API's message", async (test) => {
    const owner = await newOwner();
    const { page } = await browserFor(test);
    await open(page, "/app");
    await page.getByRole("heading", SIGN_IN).waitFor();
    await checkA11y(page, "sign-in");
    await screenshots(page, "sign-in");

    await submitSignIn(page, { email: owner.email, password: "not the password at all" });
    const refusal = page.getByRole("alert");
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe("Invalid email or password");
    await checkA11y(page, "sign-in-refused");

    await submitSignIn(page, owner);
    await signedIn(page, owner);
    await onPage(page, "Dashboard");
    expect(new URL(page.url()).pathname).toMatch(/^\/app\/?$/);
    await checkA11y(page, "dashboard");
    await screenshots(page, "dashboard");
  });

  it("keeps the session across a reload (the refresh cookie) and ends it on sign-out", async (test) => {
    const owner = await newOwner();
    const { context, page } = await browserFor(test);
    await signIn(page, owner);
    const cookie = (await context.cookies()).find((c) => c.name === "shield_refresh");
    expect(cookie, "the refresh cookie").toMatchObject({ httpOnly: true, secure: true });

    await page.reload();
    await signedIn(page, owner);
    await onPage(page, "Dashboard");

    await signOut(page);
    expect(new URL(page.url()).pathname).toBe("/app/sign-in");
    await page.reload();
    await page.getByRole("heading", SIGN_IN).waitFor();
    expect(await page.locator("header.top").count()).toBe(0);
  });

  it("signs in with a passkey added on Team and access", async (test) => {
    const owner = await newOwner();
    const { page } = await browserFor(test);
    await virtualAuthenticator(page);
    await signIn(page, owner);
    await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Account" }).click();
    await onPage(page, "Account");
    const passkeysLink = page.getByRole("link", { name: "passkeys on Team and access" });
    await passkeysLink.waitFor();
    await checkA11y(page, "account");
    await screenshots(page, "account");

    // The account's passkeys are on Team and access (the account page links there).
    await passkeysLink.click();
    await page.locator('nav[aria-label="Setup"] a[aria-current="page"]', { hasText: "Team and access" }).waitFor();
    const passkeys = page.locator("section", { has: page.getByRole("heading", { level: 2, name: "Passkeys" }) });
    await passkeys.getByText("No passkey yet.").waitFor();
    await passkeys.getByLabel("Name of the new passkey").fill("Test laptop");
    await passkeys.getByRole("button", { name: "Add a passkey" }).click();
    await passkeys.locator("tbody tr", { hasText: "Test laptop" }).waitFor();
    await passkeys.getByText("on (password and passkey)").waitFor();
    // The password alone no longer signs in: the API asks for the passkey.
    const login = await request("/auth/login", { body: { email: owner.email, password: owner.password } });
    expect(login.body).toMatchObject({ twofa_required: true });
    expect(login.body.access_token).toBeUndefined();

    await signOut(page);
    await submitSignIn(page, owner);
    await page.getByRole("heading", { level: 2, name: "Confirm with your passkey" }).waitFor();
    await checkA11y(page, "passkey-step");
    await screenshots(page, "passkey-step");
    await page.getByRole("button", { name: "Use my passkey" }).click();
    await signedIn(page, owner);
    await onPage(page, "Dashboard");
  });

  it("makes an invited member choose a password at first sign-in; the temporary one stops working", async (test) => {
    const owner = await newOwner();
    const member = await inviteMember(owner);
    const { page } = await browserFor(test);
    await submitSignIn(page, member);
    await page.getByRole("heading", { level: 1, name: "Choose your password" }).waitFor();
    expect(await page.locator("nav").count(), "no other page before the change").toBe(0);
    await checkA11y(page, "forced-change");
    await screenshots(page, "forced-change");

    const chosen = `member's own password ${Date.now()}`;
    await page.getByLabel("Current password").fill(member.temporaryPassword);
    await page.getByLabel("New password", { exact: true }).fill(chosen);
    await page.getByLabel("New password again").fill(chosen);
    await page.getByRole("button", { name: "Change password" }).click();
    // The header names the member (GET /auth/me's `user`), not the account's owner.
    await signedIn(page, member);
    await onPage(page, "Dashboard");

    const old = await request("/auth/login", { body: { email: member.email, password: member.temporaryPassword } });
    expect(old.status).toBe(401);
    const now = await request("/auth/login", { body: { email: member.email, password: chosen } });
    expect(now.status).toBe(200);
    expect(now.body.customer.must_change_password).toBe(false);
  });

  it("opens a link to a page after signing in", async (test) => {
    const owner = await newOwner();
    const { page } = await browserFor(test);
    await open(page, "/app/calls");
    await page.getByRole("heading", SIGN_IN).waitFor();
    await page.getByText("Sign in to open /calls.").waitFor();
    await submitSignIn(page, owner);
    await signedIn(page, owner);
    await onPage(page, "Calls");
    expect(new URL(page.url()).pathname).toBe("/app/calls");
  });

  it("creates an account from the sign-up page and opens its dashboard", async (test) => {
    const { page } = await browserFor(test);
    await open(page, "/app/sign-up");
    await page.getByRole("heading", { level: 1, name: "Create your Call Shield account" }).waitFor();
    await checkA11y(page, "sign-up");
    await screenshots(page, "sign-up");

    const email = `signup-${Date.now()}@portal.test`;
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill(`sign-up password ${Date.now()}`);
    await page.getByLabel("Company").fill("Northwind Telecom");
    await page.getByLabel("Your name").fill("Ada Analyst");
    await page.getByLabel("I accept the Terms of service").check();
    await page.getByRole("button", { name: "Create account" }).click();
    await signedIn(page, { email, password: "" });
    await onPage(page, "Dashboard");
  });
});
