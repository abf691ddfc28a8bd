// The node's configuration refuses what would expose it: the Worker in clear text off this
// machine, a malformed range of addresses it may reach.
import { describe, expect, it } from "vitest";
import { loadSipNodeConfig } from "../../sip-node/config.ts";

const token = "t".repeat(32);

describe("SIP node configuration, security", () => {
  it("wants the Worker over https unless it is on loopback", () => {
    expect(() => loadSipNodeConfig({ NODE_TOKEN: token, WORKER_URL: "http://api.example.net" })).toThrow(
      "WORKER_URL: must be https unless the Worker is on loopback",
    );
    expect(() => loadSipNodeConfig({ NODE_TOKEN: token, WORKER_URL: "http://10.0.0.5:8787" })).toThrow(/WORKER_URL: must be https/);
    for (const url of ["https://api.example.net", "http://127.0.0.1:8787", "http://localhost:8787", "http://[::1]:8787"]) {
      expect(loadSipNodeConfig({ NODE_TOKEN: token, WORKER_URL: url }).worker.url).toBe(url);
    }
  });

  it("reads the private ranges the operator allows, naming a bad one", () => {
    const config = loadSipNodeConfig({ NODE_TOKEN: token, SIP_ALLOWED_PRIVATE_RANGES: "10.20.0.0/16, fd12:3456::/32" });
    expect(config.media.allowedPrivateRanges).toEqual(["10.20.0.0/16", "fd12:3456::/32"]);
    expect(() => loadSipNodeConfig({ NODE_TOKEN: token, SIP_ALLOWED_PRIVATE_RANGES: "10.20.0.0/16,banana" })).toThrow(
      /SIP_ALLOWED_PRIVATE_RANGES: banana: /,
    );
  });
});
