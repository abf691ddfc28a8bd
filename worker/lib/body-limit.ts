// One request body limit for the whole Worker (issue 20, finding 10): 64 KiB, enough for every
// JSON and form body the APIs take, refused with 413 before any handler reads or parses it (the
// legacy form is parsed before its signature is checked, sign-in before the password). The
// exceptions are what needs more, both behind the node token: a node's media upload (PUT
// /internal/calls/{id}/media/{name}), which streams up to MAX_MEDIA_BYTES into R2 and checks its
// declared length itself, and its call reports (POST /internal/calls/report), whose heartbeat
// names every call the node carries (about 90 bytes each: 20,000 calls at most, 2 MiB); and a
// do-not-originate upload (POST /api/customer/screening/do-not-originate: up to 10,000 numbers of
// at most 40 characters, quoted, 512 KiB), behind the account's credential.
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_REPORT_BYTES = 2 * 1024 * 1024;
export const MAX_NUMBER_LIST_BYTES = 512 * 1024;

const MEDIA_UPLOAD = /^\/internal\/calls\/[^/]+\/media\/[^/]+$/;

const needsMore = (c: Context) => c.req.method === "PUT" && MEDIA_UPLOAD.test(c.req.path);

/** The 413 in the body format of the API the path belongs to: {detail} for /api, /internal and /dev, else the exchange's. */
function tooLarge(c: Context): Response {
  const message = `The request body is larger than ${isCallReport(c) ? MAX_REPORT_BYTES : isNumberList(c) ? MAX_NUMBER_LIST_BYTES : MAX_BODY_BYTES} bytes`;
  if (/^\/(api|internal|dev)(\/|$)/.test(c.req.path)) return c.json({ detail: message }, 413);
  return c.json({ status: "error", message }, 413);
}

const limited = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge });
const reportLimited = bodyLimit({ maxSize: MAX_REPORT_BYTES, onError: tooLarge });

const numberListLimited = bodyLimit({ maxSize: MAX_NUMBER_LIST_BYTES, onError: tooLarge });

const isCallReport = (c: Context) => c.req.method === "POST" && c.req.path === "/internal/calls/report";
const isNumberList = (c: Context) => c.req.method === "POST" && c.req.path === "/api/customer/screening/do-not-originate";

export const requestBodyLimit: MiddlewareHandler = (c, next) => {
  if (needsMore(c)) return next();
  if (isNumberList(c)) return numberListLimited(c, next);
  return isCallReport(c) ? reportLimited(c, next) : limited(c, next);
};
