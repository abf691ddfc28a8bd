// The wholesale exchange API (docs/spec/exchange-api.md), served by the same Worker:
//   v2      <EXCHANGE_PREFIX>/...                         HTTP Digest (digest/), default /exchange
//   legacy  <EXCHANGE_LEGACY_PREFIX>/<controller>.php     signature (legacy.ts), default /exchange/v1
//   admin   <EXCHANGE_PREFIX>/admin/...                   operator bearer token (admin.ts)
// Both prefixes are configuration. A dedicated hostname serves the exchange at its root: set
// EXCHANGE_HOSTNAME (v2 at "/", v1 at "/v1/<controller>.php" and "/<controller>.php" there, the
// prefixes still valid on every other hostname), or deploy with EXCHANGE_PREFIX="" and
// EXCHANGE_LEGACY_PREFIX="/v1" (or "": legacy paths end in .php).
//
// newApp() mounts newExchangeApp() at "/": a middleware that hands requests under those
// prefixes, with the Services newApp() built for them, to the exchange's own Hono app, which sees
// paths without the prefix (legacy ones as /v1/<controller>) and answers in the exchange's
// conventions (respond.ts), 404s included.
//
// Adding endpoints: write an Operation (operation.ts) and expose it in registerRoutes below,
// with its legacy controller name when v1 has one; routes with their own authentication (SM-DP+
// notifications, device ingestion) go on router.app directly.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import { loadConfig, type Config } from "../env.ts";
import type { Services } from "../services/context.ts";
import { newAdminApp } from "./admin.ts";
import { registerEsim } from "./esim/routes.ts";
import { registerIot } from "./iot/routes.ts";
import { registerMarket } from "./market/routes.ts";
import { registerSellers } from "./sellers/routes.ts";
import { balance } from "./balance.ts";
import { exchangeServicesOf, type ExchangeEnv } from "./context.ts";
import { controllerOf, registerLegacy } from "./legacy.ts";
import { lookup } from "./lookup.ts";
import { newRouter, type ExchangeRouter } from "./operation.ts";
import { notFoundResponse, renderExchangeError } from "./respond.ts";

/** Every endpoint of the exchange. */
function registerRoutes(router: ExchangeRouter): void {
  router.app.route("/admin", newAdminApp());
  router.expose("POST", "/buyers/balance", balance, "balance");
  router.legacy.set("lookup", lookup); // v1 only: the spec shows no v2 path for it
  registerEsim(router);
  registerIot(router);
  registerSellers(router);
  registerMarket(router);
  registerLegacy(router);
}

type Placement = Pick<Config, "EXCHANGE_PREFIX" | "EXCHANGE_LEGACY_PREFIX" | "EXCHANGE_HOSTNAME">;

/** Where the exchange is served for a request to `hostname`: its own hostname serves it at the root. */
function placementFor(config: Placement, hostname: string): Pick<Config, "EXCHANGE_PREFIX" | "EXCHANGE_LEGACY_PREFIX"> {
  if (config.EXCHANGE_HOSTNAME && hostname.toLowerCase() === config.EXCHANGE_HOSTNAME.toLowerCase()) {
    return { EXCHANGE_PREFIX: "", EXCHANGE_LEGACY_PREFIX: "/v1" };
  }
  return config;
}

/**
 * The path the exchange app routes on: "/buyers/balance" for <prefix>/buyers/balance,
 * "/v1/lookup" for <legacy prefix>/lookup.php; null when the request is not the exchange's.
 * On EXCHANGE_HOSTNAME the prefix is "" and the legacy prefix "/v1" (or "": .php paths are v1's).
 */
export function exchangePath(pathname: string, config: Placement, hostname = ""): string | null {
  const { EXCHANGE_PREFIX: prefix, EXCHANGE_LEGACY_PREFIX: legacy } = placementFor(config, hostname);
  const atRoot = prefix === "" && legacy !== "";
  for (const base of atRoot ? [legacy, ""] : [legacy]) {
    if (pathname.startsWith(`${base}/`)) {
      const controller = controllerOf(pathname.slice(base.length));
      if (controller) return `/v1/${controller}`;
    }
  }
  if (pathname === prefix) return "/";
  if (pathname.startsWith(`${prefix}/`)) return pathname.slice(prefix.length);
  return null;
}

/** The path and host of a request URL, without parsing it whole (this runs on every request). */
function locate(url: string): { pathname: string; hostname: string } {
  const hostStart = url.indexOf("://") + 3;
  const start = url.indexOf("/", hostStart);
  const authority = url.slice(hostStart, start < 0 ? undefined : start);
  const hostname = authority.replace(/^.*@/, "").replace(/:\d+$/, "");
  if (start < 0) return { pathname: "/", hostname };
  const end = url.slice(start).search(/[?#]/);
  return { pathname: end < 0 ? url.slice(start) : url.slice(start, start + end), hostname };
}

const pathOf = (url: string, config: Placement) => {
  const { pathname, hostname } = locate(url);
  return exchangePath(pathname, config, hostname);
};

/** The Services of each request handed to the exchange's app (its own Hono app sees the request, not newApp()'s context). */
const servicesOfRequest = new WeakMap<Request, Services>();

/** The exchange's own app: routes relative to the prefix, the exchange's error and 404 answers. */
function newExchangeRoutes(): Hono<ExchangeEnv> {
  const app = new Hono<ExchangeEnv>({
    getPath: (request, options) => {
      const env = options?.env;
      const path = env ? pathOf(request.url, loadConfig(env)) : null;
      return path ?? "/__not_exchange__";
    },
  });
  app.use("*", async (c, next) => {
    const services = servicesOfRequest.get(c.req.raw);
    if (!services) throw new Error("exchange: a request reached the exchange's app without its Services");
    c.set("config", services.config);
    c.set("services", exchangeServicesOf(services, c.env));
    await next();
  });
  registerRoutes(newRouter(app));
  app.notFound(notFoundResponse);
  app.onError(renderExchangeError);
  return app;
}

function executionContextOf(c: Context): Context["executionCtx"] | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

/** Mounted by newApp() at "/": passes the exchange's requests to its app, the rest on. */
export function newExchangeApp(): Hono<AppEnv> {
  const exchange = newExchangeRoutes();
  const mount = new Hono<AppEnv>();
  mount.use("*", async (c, next) => {
    if (pathOf(c.req.url, c.var.config) === null) return next();
    servicesOfRequest.set(c.req.raw, c.var.services);
    return exchange.fetch(c.req.raw, c.env, executionContextOf(c));
  });
  return mount;
}
