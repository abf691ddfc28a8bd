// The media spool hands each file to the Worker once it can, and never keeps retrying what the
// Worker will refuse again: a 4xx other than a timeout or a throttle drops the file.
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WorkerApiError, type WorkerClient } from "../../sip-node/control/worker-client.ts";
import { MediaEngine } from "../../sip-node/media/engine.ts";

function engineWith(answer: (attempt: number) => Promise<void>) {
  let attempts = 0;
  const logged: string[] = [];
  const accounts: Array<string | undefined> = [];
  const worker = {
    uploadMedia: (_callId: string, _name: string, _path: string, customerId?: string) => {
      accounts.push(customerId);
      return answer(++attempts);
    },
  } as unknown as WorkerClient;
  const spool = mkdtempSync(join(tmpdir(), "spool-"));
  const options = { portMin: 51_000, portMax: 51_009, bind: "127.0.0.1", timeoutMs: 60_000, holdTimeoutMs: 60_000, spoolDir: spool };
  const engine = new MediaEngine({ ...options, publicAddress: "127.0.0.1" }, worker, (line) => logged.push(line));
  const file = join(spool, "call-caller.pcap");
  writeFileSync(file, Buffer.alloc(100));
  return { engine, file, logged, accounts, attempts: () => attempts };
}

describe("uploads from the spool", () => {
  it("drop a file the Worker refuses for good (422), after one attempt, with one log line", async () => {
    const { engine, file, logged, attempts } = engineWith(async () => {
      throw new WorkerApiError("upload caller.pcap: 422 The body is empty", 422);
    });
    await engine.upload("call", [{ name: "caller.pcap", path: file }]);
    engine.stop();
    expect(attempts()).toBe(1);
    expect(existsSync(file)).toBe(false);
    expect(logged).toEqual([expect.stringMatching(/refused \(422\), dropped/)]);
  });

  it("keep a file the Worker could not take now (503), for the next start", async () => {
    const { engine, file, attempts } = engineWith(async () => {
      throw new WorkerApiError("upload caller.pcap: 503 busy", 503);
    });
    await engine.upload("call", [{ name: "caller.pcap", path: file }]);
    engine.stop();
    expect(attempts()).toBeGreaterThan(1);
    expect(existsSync(file)).toBe(true);
  }, 20_000);

  it("ask again for a call whose record has not reached D1 yet (409), naming the call's account each time", async () => {
    const customer = "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed";
    const { engine, file, accounts, attempts } = engineWith(async (attempt) => {
      if (attempt < 3) throw new WorkerApiError("upload caller.pcap: 409 not recorded yet", 409);
    });
    await engine.upload("call", [{ name: "caller.pcap", path: file }], customer);
    engine.stop();
    expect(attempts()).toBe(3);
    expect(accounts).toEqual([customer, customer, customer]);
    expect(existsSync(file)).toBe(false);
  }, 20_000);

  it("drop a file for a call the Worker does not know (404), after one attempt", async () => {
    const { engine, file, attempts } = engineWith(async () => {
      throw new WorkerApiError("upload caller.pcap: 404 no such call", 404);
    });
    await engine.upload("call", [{ name: "caller.pcap", path: file }], "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed");
    engine.stop();
    expect(attempts()).toBe(1);
    expect(existsSync(file)).toBe(false);
  });
});
