// The media spool is the node's alone: a private directory, files only it can read, and at start
// only the files it wrote (names signed with its key) go to the Worker.
import { chownSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { WorkerClient } from "../../sip-node/control/worker-client.ts";
import { MediaEngine } from "../../sip-node/media/engine.ts";
import { SipLogWriter } from "../../sip-node/media/sip-log.ts";
import { Spool } from "../../sip-node/media/spool.ts";
import { writePcapFile } from "../../sip-node/media/pcap.ts";

const CALL = "0b5d6c1e-6f3a-4c2b-8d9e-0a1b2c3d4e5f";
const KEY = "ab".repeat(32);

function engineIn(spoolDir: string, spoolKey = KEY) {
  const uploaded: Array<{ callId: string; name: string }> = [];
  const logged: string[] = [];
  const worker = {
    uploadMedia: async (callId: string, name: string) => void uploaded.push({ callId, name }),
  } as unknown as WorkerClient;
  const engine = new MediaEngine(
    {
      portMin: 52_000,
      portMax: 52_009,
      bind: "127.0.0.1",
      timeoutMs: 60_000,
      holdTimeoutMs: 60_000,
      spoolDir,
      spoolKey,
      publicAddress: "127.0.0.1",
    },
    worker,
    (line) => logged.push(line),
  );
  return { engine, uploaded, logged };
}

const pcap = (path: string) =>
  writePcapFile(path, [
    { timeMs: 0, src: { address: "192.0.2.1", port: 4000 }, dst: { address: "192.0.2.2", port: 4002 }, payload: new Uint8Array(172) },
  ]);

describe("the media spool", () => {
  it("is created private (0700) and the files the node writes are 0600", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "spool-private-")), "node-1");
    const { engine } = engineIn(dir);
    engine.stop();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const log = new SipLogWriter(engine.spool.path(CALL, "sip-log.jsonl"));
    await log.close();
    const [file] = readdirSync(dir);
    expect(statSync(join(dir, file!)).mode & 0o777).toBe(0o600);
  });

  it("narrows an existing directory of ours to 0700, and refuses a symbolic link or another user's directory", () => {
    const root = mkdtempSync(join(tmpdir(), "spool-private-"));
    const open = join(root, "open");
    mkdirSync(open, { mode: 0o777 });
    new Spool(open, KEY);
    expect(statSync(open).mode & 0o777).toBe(0o700);
    const link = join(root, "link");
    symlinkSync(open, link);
    expect(() => new Spool(link, KEY)).toThrow(/not a directory/);
    if (process.getuid?.() === 0) {
      const theirs = join(root, "theirs");
      mkdirSync(theirs);
      chownSync(theirs, 4321, 4321);
      expect(() => new Spool(theirs, KEY)).toThrow(/belongs to another user/);
    }
  });

  it("uploads at start only the files the node wrote, not a planted one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spool-private-"));
    const { engine, uploaded, logged } = engineIn(dir);
    engine.stop();
    pcap(engine.spool.path(CALL, "caller.pcap"));
    // Planted: the old naming, a forged tag, and a right tag under another node's key.
    pcap(join(dir, `${CALL}-callee.pcap`));
    pcap(join(dir, `${CALL}-0123456789abcdef-callee.pcap`));
    pcap(new Spool(mkdtempSync(join(tmpdir(), "spool-other-")), "cd".repeat(32)).path(CALL, "recording.wav").replace(/^.*\//, `${dir}/`));
    writeFileSync(join(dir, "notes.txt"), "operator's notes");
    expect(await engine.uploadLeftovers()).toBe(1);
    expect(uploaded).toEqual([{ callId: CALL, name: "caller.pcap" }]);
    expect(logged.filter((l) => /3 spooled file\(s\) were not written by this node, not uploaded/.test(l))).toHaveLength(1);
    // What is not the node's stays where it was, for the operator.
    expect(
      readdirSync(dir)
        .filter((f) => !f.startsWith("."))
        .sort(),
    ).toHaveLength(4);
  });

  it("keeps its own key (0600) across restarts, whatever the node token; another spool's names are not its own", () => {
    const dir = mkdtempSync(join(tmpdir(), "spool-private-"));
    const path = new Spool(dir).path(CALL, "caller.pcap");
    const entry = path.slice(dir.length + 1);
    expect(new Spool(dir).parse(entry)).toEqual({ callId: CALL, name: "caller.pcap" });
    expect(statSync(join(dir, ".spool-key")).mode & 0o777).toBe(0o600);
    expect(new Spool(mkdtempSync(join(tmpdir(), "spool-other-"))).parse(entry)).toBeNull();
  });
});
