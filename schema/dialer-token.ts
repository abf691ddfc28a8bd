// The web dialer's token as both runtimes read it: `<account id>.<secret>`. The Worker mints it
// (and keeps only its hash); the SIP node reads the account from it to ask that account's call
// ledger, which admits the call only when the whole token is that account's, unspent and unexpired.
export const DIALER_TOKEN_HEADER = "X-Dialer-Token";

const TOKEN = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/;

/** The account a dialer token names, or null when the text is not a dialer token at all. */
export function dialerTokenAccount(token: string): string | null {
  return TOKEN.exec(token.trim())?.[1] ?? null;
}
