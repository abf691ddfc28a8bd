// Sharing a call: the owner's links (create, list, revoke, rotate) and the public side a link's
// holder uses (meta, unlock, the payload and the recording). Every answer, errors included, is
// kept out of caches and sends no Referer.
import type { MiddlewareHandler } from "hono";
import type { Api } from "../context.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { registerPublicShares } from "./public-routes.ts";
import { registerShares } from "./routes.ts";

export const SHARE_ANSWER_HEADERS = { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" };

const shareAnswerHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  for (const [name, value] of Object.entries(SHARE_ANSWER_HEADERS)) c.res.headers.set(name, value);
};

export function register(api: Api): void {
  for (const path of ["/calls/:call_id/share", "/calls/:call_id/shares", "/calls/shares/*", "/public/shares/*"]) {
    api.use(path, shareAnswerHeaders);
  }
  registerShares(api);
  registerPublicShares(api);
}
