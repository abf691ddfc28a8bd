import { createRoute, z } from "@hono/zod-openapi";
import { callSigningKeys } from "../../services/placed-calls/call-signing.ts";
import type { Api } from "../context.ts";
import { jsonBody } from "../responses.ts";

const JwkSetSchema = z
  .object({
    keys: z.array(
      z.object({
        kty: z.string().openapi({ example: "OKP" }),
        crv: z.string().openapi({ example: "Ed25519" }),
        x: z.string(),
        kid: z.string(),
        alg: z.string().openapi({ example: "EdDSA" }),
        use: z.string().openapi({ example: "sig" }),
      }),
    ),
  })
  .openapi("CallSigningKeys");

const route = createRoute({
  method: "get",
  path: "/public/call-signing-keys",
  tags: ["Test calls"],
  summary: "The keys that sign the account header of calls the platform places (our extension)",
  description:
    "Every call the platform places (test, verification and web-dialer calls) carries `X-Call-Shield-Account`: a " +
    "compact JWS (EdDSA, typ call-shield-account+jws) whose payload names `customer_id`, `call_id`, `origin` " +
    "(test, verify, dialer), `number` and `iat`. A receiving network verifies it with these keys to attribute the " +
    "call to an account or refuse it. No authentication.",
  responses: { 200: jsonBody(JwkSetSchema, "JWK Set") },
});

export function registerCallSigning(api: Api) {
  api.openapi(route, async (c) => {
    c.header("Cache-Control", "public, max-age=3600");
    return c.json(await callSigningKeys(c.var.config), 200);
  });
}
