import type { Bindings } from "../env.ts";

/** The NodeHub of this deployment's region (one region for now: "default"). */
export const hubFor = (env: Bindings) => env.NODE_HUB.get(env.NODE_HUB.idFromName("default"));
