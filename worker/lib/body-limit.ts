// One request body limit for the whole Worker (issue 20, finding 10): 64 KiB, enough for every
// JSON and form body the APIs take, refused with 413 before any handler reads or parses it (the
// legacy form is parsed before its signature is checked, sign-in before the password). The one
// exception is what needs more: a node's media upload (PUT /internal/calls/{id}/media/{name}),
// which streams up to MAX_MEDIA_BYTES into R2 and checks its declared length itself.
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

export const MAX_BODY_BYTES = 64 * 1024;

const MEDIA_UPLOAD = /^\/internal\/calls\/[^/]+\/media\/[^/]+$/;

const needsMore = (c: Context) => c.req.method === "PUT" && MEDIA_UPLOAD.test(c.req.path);

/** The 413 in the body format of the API the path belongs to: {detail} for /api, /internal and /dev, else the exchange's. */
function tooLarge(c: Context): Response {
  const message = `The request body is larger than ${MAX_BODY_BYTES} bytes`;
  if (/^\/(api|internal|dev)(\/|$)/.test(c.req.path)) return c.json({ detail: message }, 413);
  return c.json({ status: "error", message }, 413);
}

const limited = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge });

export const requestBodyLimit: MiddlewareHandler = (c, next) => (needsMore(c) ? next() : limited(c, next));
