import type { D1Migration } from "cloudflare:test";
import type { Bindings } from "../../worker/env.ts";
import type * as WorkerModule from "../../worker/index.ts";

declare global {
  namespace Cloudflare {
    interface Env extends Bindings {
      TEST_MIGRATIONS: D1Migration[];
      JWT_SECRET: string;
      ENCRYPTION_KEY: string;
      NODE_TOKEN: string;
    }
    interface GlobalProps {
      mainModule: typeof WorkerModule;
      durableNamespaces: "AccountLedger" | "TrunkRegistry" | "NodeHub" | "Limiter";
    }
  }
}
