import type { Context } from "hono";

/** The caller's address as Cloudflare's edge saw it; "unknown" off the edge (tests, local tools). */
export const clientIp = (c: Context) => c.req.header("CF-Connecting-IP") ?? "unknown";
