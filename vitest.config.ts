import { randomBytes } from "node:crypto";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

/**
 * Test files run with no other file beside them (the "alone" project): what they check rests on
 * audio a recogniser hears (a verdict from the recording, a verification code spoken to the local
 * phone), which a CPU-starved sipp, relay or recogniser changes.
 */
const ALONE = [
  "test/sip-node/calls-pipeline-offline.test.ts",
  "test/sip-node/test-calls.test.ts",
  "test/sip-node/test-calls-stack.test.ts",
];

// Test-only secrets, fresh on every run: nothing secret is kept in the repository.
const secret = () => randomBytes(32).toString("base64url");

export default defineConfig({
  test: {
    reporters: ["default", "./test/summary-reporter.ts"],
    // Test files run three at a time: vitest's default on two cores is one, yet most files wait on
    // sockets (sipp calls, wrangler dev, workerd, the browser) far more than they use a core.
    maxWorkers: 3,
    projects: [
      {
        plugins: [
          cloudflareTest(async () => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                JWT_SECRET: secret(),
                ENCRYPTION_KEY: secret(),
                NODE_TOKEN: secret(),
                EXCHANGE_ADMIN_TOKEN: secret(),
                // Fixtures reuse one account for many records; the limits' own tests set the production values.
                WHITELIST_MAX_ENTRIES: "10000",
                WHITELIST_WRITES_PER_MINUTE: "10000",
                // The relying party is pinned by configuration (issue 20): the test client's origin.
                WEBAUTHN_RP_ID: "api.test",
                WEBAUTHN_ORIGIN: "https://api.test",
                // Card payments through the embedded checkout, its callbacks signed with this secret as Stripe signs them.
                PAYMENTS_PROVIDER: "local",
                // The platform's own route for verification calls (never an account's destination).
                VERIFY_ROUTE: "sip:verify.platform.test:5070;transport=tcp",
                STRIPE_WEBHOOK_SECRET: `whsec_${secret()}`,
                // The numbers CLI checks call (the hosted-number listener's), in two countries.
                CLI_NUMBERS: "GB=+442079460000,US=+12025550143",
                TEST_MIGRATIONS: await readD1Migrations("./schema/migrations"),
              },
              // As wrangler.toml has them, but call records go to D1 at once: tests wait for them.
              queueConsumers: {
                "call-shield-analysis": { maxBatchSize: 4, maxBatchTimeout: 1, maxRetries: 10 },
                "call-shield-call-records": { maxBatchSize: 100, maxBatchTimeout: 0, maxRetries: 100 },
              },
            },
          })),
        ],
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          // Concurrency tests put hundreds of requests through workerd; on a loaded 2-core machine they need more than 5 s.
          testTimeout: 30_000,
          setupFiles: ["./test/worker/setup.ts"],
        },
      },
      {
        test: {
          name: "node",
          environment: "node",
          include: ["test/sip-node/**/*.test.ts", "test/contract/**/*.test.ts", "test/browser/**/*.test.ts", "test/analyser/**/*.test.ts"],
          exclude: [...ALONE],
          // The sipp tests start wrangler dev and place real calls; three files at a time on two cores.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        // Calls whose verdict rests on what the offline recogniser hears in their recording: each
        // file runs with nothing else on the machine, as a CPU-starved sipp or relay changes the audio.
        test: {
          name: "alone",
          environment: "node",
          include: [...ALONE],
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "e2e",
          environment: "node",
          include: ["test/e2e/**/*.test.ts"],
          // Each file runs `npm start` on the repository's own local state (.wrangler): one at a time.
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
      {
        // The portal in Chromium against one `npm start` stack (fresh local state) that
        // test/portal/global-setup.ts starts for every file of the project; files run side by side,
        // each with accounts of its own.
        test: {
          name: "portal",
          environment: "node",
          include: ["test/portal/**/*.test.ts"],
          globalSetup: ["./test/portal/global-setup.ts"],
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
