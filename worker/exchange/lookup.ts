// Legacy v1 `lookup` (fields `prefix`, `type`): what the platform knows about a number prefix
// (worker/services/exchange/lookup.ts).
import { z } from "zod";
import { required, withDefault } from "../services/exchange/fields.ts";
import { lookupPrefix, LOOKUP_TYPES } from "../services/exchange/lookup.ts";
import { operation } from "./operation.ts";

const LookupFields = z.object({
  prefix: required(
    z
      .string()
      .transform((v) => v.replace(/[\s().-]/g, ""))
      .pipe(z.string().regex(/^\+?\d{1,15}$/, { error: "must be 1 to 15 digits, optionally after +" }))
      .transform((v) => v.replace(/^\+/, "")),
  ),
  type: withDefault(
    z
      .string()
      .transform((v) => v.toUpperCase())
      .pipe(z.enum(LOOKUP_TYPES, { error: `must be one of ${LOOKUP_TYPES.join(", ")}` })),
    "CLI",
  ),
});

export const lookup = operation({
  role: "any",
  input: LookupFields,
  run: async (c, input) => lookupPrefix(c.var.services, input.prefix, input.type),
});
