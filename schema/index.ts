// Every D1 table, for drizzle-kit and for `drizzle(env.DB, { schema })`.
export * from "./identity.ts";
export * from "./catalogue.ts";
export * from "./network.ts";
export * from "./calls.ts";
export * from "./sharing.ts";
export * from "./cases.ts";
export * from "./tickets.ts";
export * from "./automation.ts";
export * from "./alerts.ts";
export * from "./test-calls.ts";
export * from "./oauth.ts";
export * from "./billing.ts";
export * from "./events.ts";
export * from "./exchange.ts";
export * from "./cli-checks.ts";
export * from "./screening.ts";
