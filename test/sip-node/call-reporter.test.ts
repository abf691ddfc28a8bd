// The call reporter against a stand-in Worker (the same `report` function the Worker client
// offers): events numbered per call and kept in order, batches by count and by time window, one
// batch in flight, a failed batch sent again with the same batch id, ends kept in the journal
// until acknowledged and sent first by a node started again, and heartbeats naming every call.
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CallEvent, CallReport, CallReportAnswer } from "../../schema/node-api.ts";
import { CallReporter, type CallReporterOptions, type LiveCall } from "../../sip-node/control/call-reporter.ts";
import { WorkerApiError } from "../../sip-node/control/worker-client.ts";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The timers the reporter uses, faked by the tests that judge its timing (setImmediate stays real for `until`). */
const FAKE_CLOCK: Parameters<typeof vi.useFakeTimers>[0] = {
  toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
};

/**
 * Waits until `check` holds, polling on every turn of the event loop (setImmediate, real under
 * the fake clock too), within 5 s of real time.
 */
async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = performance.now() + 5_000;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
const NO_ANSWER: CallReportAnswer = { grants: [], ended: [] };
const CUSTOMER = randomUUID();

const answered = (): CallEvent => ({ type: "answered", at: new Date().toISOString(), codec: "PCMU" });
const ended = (reason = "caller_hangup"): CallEvent => ({
  type: "ended",
  at: new Date().toISOString(),
  answered_at: null,
  sip_code: 200,
  hangup_by: "caller",
  end_reason: reason,
});

/** A stand-in Worker: keeps every report posted (retries included), answers with `answer`. */
function standIn(answer: (report: CallReport) => Promise<CallReportAnswer> = async () => NO_ANSWER) {
  const posts: CallReport[] = [];
  return {
    posts,
    /** Reports carrying events, first attempts only (a retry repeats its batch id). */
    batches: () => posts.filter((p, i) => p.events.length > 0 && posts.findIndex((q) => q.batch_id === p.batch_id) === i),
    report: async (report: CallReport) => {
      posts.push(structuredClone(report));
      return answer(report);
    },
  };
}

const reporters: CallReporter[] = [];
afterEach(() => {
  for (const reporter of reporters.splice(0)) reporter.stop();
  vi.useRealTimers();
});

function reporterWith(worker: ReturnType<typeof standIn>, options: Partial<CallReporterOptions> = {}) {
  const logs: string[] = [];
  const reporter = new CallReporter({
    worker,
    nodeId: "node-a",
    bootId: randomUUID(),
    journalPath: join(mkdtempSync(join(tmpdir(), "reporter-")), "call-reports.journal"),
    heartbeatMs: 60_000,
    live: () => [],
    onAnswer: () => {},
    log: (line) => logs.push(line),
    backoffMs: 10,
    maxBackoffMs: 40,
    ...options,
  });
  reporters.push(reporter);
  return { reporter, logs };
}

/** Starts the reporter and waits for its first heartbeat to have been answered (none in flight). */
async function started(reporter: CallReporter) {
  reporter.start();
  const inFlight = () => (reporter as unknown as { inFlight: boolean }).inFlight;
  await until("the first heartbeat answered", () => (reporter as unknown as { lastBeatAt: number }).lastBeatAt > 0 && !inFlight());
}

describe("call events", () => {
  it("are numbered from 1 per call and reach the Worker in order per call", async () => {
    const worker = standIn(async () => {
      await pause(5);
      return NO_ANSWER;
    });
    const { reporter } = reporterWith(worker, { batchEvents: 3 });
    await started(reporter);
    const calls = [randomUUID(), randomUUID(), randomUUID()];
    for (let round = 0; round < 4; round++) {
      for (const call of calls) reporter.report(call, CUSTOMER, round === 3 ? ended() : answered());
      await pause(round * 7); // deliberate: rounds spread over the batch window
    }
    expect(await reporter.flush(2_000)).toBe(true);
    const sent = worker.batches().flatMap((b) => b.events);
    expect(sent).toHaveLength(12);
    for (const call of calls) {
      const own = sent.filter((e) => e.call_id === call);
      expect(own.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      expect(own.map((e) => e.event.type)).toEqual(["answered", "answered", "answered", "ended"]);
      expect(own.every((e) => e.customer_id === CUSTOMER)).toBe(true);
    }
    expect(worker.batches().length).toBeGreaterThan(1);
  });

  it("leave in a batch as soon as 100 wait, and the rest together once it is answered (one batch in flight)", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const worker = standIn(async (report) => {
      if (report.events.length > 0) await held;
      return NO_ANSWER;
    });
    const { reporter } = reporterWith(worker, { windowMs: 10_000 });
    await started(reporter);
    for (let i = 0; i < 99; i++) reporter.report(randomUUID(), CUSTOMER, answered());
    await pause(20); // deliberate: a window in which nothing may leave
    expect(worker.batches()).toHaveLength(0); // 99 wait for the (long) window
    for (let i = 0; i < 151; i++) reporter.report(randomUUID(), CUSTOMER, answered());
    await until("a batch sent", () => worker.batches().length > 0);
    expect(worker.batches().map((b) => b.events.length)).toEqual([100]); // the 100th sent it; the next waits
    release();
    expect(await reporter.flush(2_000)).toBe(true);
    expect(worker.batches().map((b) => b.events.length)).toEqual([100, 150]);
  });

  it("leave in one batch 20 ms after the first of them when fewer than 100 wait", async () => {
    vi.useFakeTimers(FAKE_CLOCK);
    const worker = standIn();
    const { reporter } = reporterWith(worker);
    await started(reporter);
    const at = Date.now();
    for (let i = 0; i < 5; i++) reporter.report(randomUUID(), CUSTOMER, answered());
    await vi.advanceTimersByTimeAsync(5);
    expect(worker.batches()).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(14);
    expect(worker.batches()).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    await until("the batch sent", () => worker.batches().length > 0);
    expect(worker.batches().map((b) => b.events.length)).toEqual([5]);
    const sentAt = worker.posts.length; // the stand-in answers at once
    expect(sentAt).toBe(2); // the start's heartbeat, then this batch
    expect(Date.now() - at).toBeGreaterThanOrEqual(20);
  });
});

describe("a report the Worker did not take", () => {
  it("is sent again with the same batch id and events, with nothing sent past it, until taken", async () => {
    const failures = [
      new TypeError("fetch failed"),
      new WorkerApiError("POST /calls/report: 503", 503),
      new DOMException("timed out", "TimeoutError"),
    ];
    const worker = standIn(async (report) => {
      const failure = report.events.length > 0 ? failures.shift() : undefined;
      if (failure) throw failure;
      return NO_ANSWER;
    });
    const { reporter, logs } = reporterWith(worker);
    await started(reporter);
    const call = randomUUID();
    reporter.report(call, CUSTOMER, answered());
    await until("the first attempt failed", () => logs.some((line) => /failed \(attempt 1\)/.test(line)));
    reporter.report(call, CUSTOMER, ended());
    expect(await reporter.flush(3_000)).toBe(true);
    const withEvents = worker.posts.filter((p) => p.events.length > 0);
    expect(withEvents.map((p) => p.events.map((e) => e.seq))).toEqual([[1], [1], [1], [1], [2]]);
    expect(new Set(withEvents.slice(0, 4).map((p) => p.batch_id)).size).toBe(1);
    expect(withEvents[4]!.batch_id).not.toBe(withEvents[0]!.batch_id);
    expect(logs.some((line) => /failed \(attempt 1\), retrying/.test(line))).toBe(true);
  });

  it("is dropped with one log line when the Worker refuses it for good (422), and the next goes", async () => {
    const worker = standIn(async (report) => {
      if (report.events.some((e) => e.event.type === "answered")) throw new WorkerApiError("POST /calls/report: 422 bad", 422);
      return NO_ANSWER;
    });
    const { reporter, logs } = reporterWith(worker);
    await started(reporter);
    reporter.report(randomUUID(), CUSTOMER, answered());
    await until("the first batch refused", () => logs.some((line) => /refused \(422\)/.test(line)));
    reporter.report(randomUUID(), CUSTOMER, ended());
    expect(await reporter.flush(2_000)).toBe(true);
    expect(worker.posts.filter((p) => p.events.length > 0)).toHaveLength(2);
    expect(logs.filter((line) => /refused \(422\)/.test(line))).toHaveLength(1);
  });
});

/** An end with a ladder of `messages` SIP messages (about 280 bytes each in JSON). */
const endWithLadder = (messages: number): CallEvent => ({
  ...(ended() as Extract<CallEvent, { type: "ended" }>),
  ladder: Array.from({ length: messages }, (_, i) => ({
    time_stamp: new Date().toISOString(),
    direction: "in" as const,
    method: "INVITE",
    status: null,
    fromip: "203.0.113.10:5060",
    toip: "198.51.100.20:5060",
    fromtag: `from-tag-${i}`,
    totag: null,
    first_line: `INVITE sip:14155550123@198.51.100.20 SIP/2.0 (${i})`,
  })),
  dtmf: [{ t: 1.5, digit: "5", channel: "caller" }],
});

describe("the size of a report", () => {
  it("stays within the Worker's body limit (64 KiB): ends with long ladders go a few at a time, all of them, in order", async () => {
    const worker = standIn();
    const { reporter } = reporterWith(worker);
    await started(reporter);
    const calls = Array.from({ length: 20 }, () => randomUUID());
    for (const call of calls) reporter.report(call, CUSTOMER, endWithLadder(100));
    expect(await reporter.flush(3_000)).toBe(true);
    const batches = worker.batches();
    expect(batches.length).toBeGreaterThan(5);
    for (const batch of batches) expect(JSON.stringify(batch).length).toBeLessThanOrEqual(64 * 1024);
    expect(batches.flatMap((b) => b.events.map((e) => e.call_id))).toEqual(calls);
  });

  it("is sent again smaller when the Worker answers 413: fewer events, then an end without its ladder", async () => {
    const LIMIT = 20_000;
    const worker = standIn(async (report) => {
      if (JSON.stringify(report).length > LIMIT) throw new WorkerApiError("POST /calls/report: 413 too large", 413);
      return NO_ANSWER;
    });
    const { reporter } = reporterWith(worker, { maxBatchBytes: 1_000_000 });
    await started(reporter);
    const small = Array.from({ length: 40 }, () => randomUUID());
    for (const call of small) reporter.report(call, CUSTOMER, endWithLadder(5));
    const huge = randomUUID();
    reporter.report(huge, CUSTOMER, endWithLadder(150));
    expect(await reporter.flush(3_000)).toBe(true);
    const taken = worker.posts.filter((p) => JSON.stringify(p).length <= LIMIT).flatMap((p) => p.events);
    expect(taken.map((e) => e.call_id)).toEqual([...small, huge]);
    const end = taken.at(-1)!.event;
    expect(end).toMatchObject({ type: "ended", end_reason: "caller_hangup" });
    expect(end.type === "ended" && end.ladder).toBeFalsy();
    expect(taken.slice(0, -1).every((e) => e.event.type === "ended" && e.event.ladder?.length === 5)).toBe(true);
  });
});

describe("the end of a call", () => {
  it("survives a node that stops before the Worker took it: the next run sends it first, with its first heartbeat", async () => {
    const journalPath = join(mkdtempSync(join(tmpdir(), "reporter-")), "call-reports.journal");
    const down = standIn(async () => {
      throw new TypeError("fetch failed");
    });
    const first = reporterWith(down, { journalPath }).reporter;
    first.start();
    const [a, b] = [randomUUID(), randomUUID()];
    first.report(a, CUSTOMER, answered());
    first.report(a, CUSTOMER, ended("caller_hangup"));
    first.report(b, CUSTOMER, answered());
    first.report(b, CUSTOMER, ended("callee_hangup"));
    // The first report (its start's heartbeat, ahead of the ends) tried and failed again.
    await until("a failed report retried", () => down.posts.length >= 2);
    first.stop(); // as if killed: nothing was acknowledged
    const oldBoot = down.posts[0]!.boot_id;

    const up = standIn();
    const second = reporterWith(up, { journalPath, live: () => [] }).reporter;
    second.start();
    expect(await second.flush(2_000)).toBe(true);
    // One report under the new boot: the ledger ends the old boot's calls, then charges these ends as they happened.
    const [replay] = up.posts;
    expect(replay).toMatchObject({ node_id: "node-a", live: [] });
    expect(replay!.boot_id).not.toBe(oldBoot);
    expect(replay!.events.map((e) => [e.call_id, e.seq, e.event.type])).toEqual([
      [a, 2, "ended"],
      [b, 2, "ended"],
    ]);
    expect(replay!.events.map((e) => (e.event.type === "ended" ? e.event.end_reason : null))).toEqual(["caller_hangup", "callee_hangup"]);
    // Everything acknowledged: the journal is empty, and a third run sends nothing again.
    expect(statSync(journalPath).size).toBe(0);
    const again = standIn();
    const third = reporterWith(again, { journalPath }).reporter;
    third.start();
    expect(await third.flush(2_000)).toBe(true);
    expect(again.posts.flatMap((p) => p.events)).toEqual([]);
  });

  it("is kept in the journal while its batch is unanswered, and leaves it once acknowledged", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const worker = standIn(async (report) => {
      if (report.events.length > 0) await held;
      return NO_ANSWER;
    });
    const { reporter } = reporterWith(worker);
    await started(reporter);
    const call = randomUUID();
    const journalPath = (reporter as unknown as { options: CallReporterOptions }).options.journalPath;
    reporter.report(call, CUSTOMER, answered());
    reporter.report(call, CUSTOMER, ended());
    const lines = readFileSync(journalPath, "utf8").trim().split("\n");
    expect(lines).toHaveLength(1); // only ends are journaled, at once
    expect(JSON.parse(lines[0]!).event).toMatchObject({ call_id: call, seq: 2, event: { type: "ended" } });
    release();
    expect(await reporter.flush(2_000)).toBe(true);
    expect(statSync(journalPath).size).toBe(0);
  });

  it("is read back whole after a crash cut the journal's last line", async () => {
    const journalPath = join(mkdtempSync(join(tmpdir(), "reporter-")), "call-reports.journal");
    const call = randomUUID();
    const entry = { boot: "old-boot", event: { call_id: call, customer_id: CUSTOMER, seq: 3, event: ended() } };
    writeFileSync(journalPath, `${JSON.stringify(entry)}\n{"boot":"old-boot","event":{"call_id":"`);
    const worker = standIn();
    const { reporter, logs } = reporterWith(worker, { journalPath });
    reporter.start();
    expect(await reporter.flush(2_000)).toBe(true);
    expect(worker.posts[0]).toMatchObject({ events: [{ call_id: call, seq: 3 }] });
    expect(logs.some((line) => /skipped a line/.test(line))).toBe(true);
  });
});

describe("heartbeats", () => {
  it("name every call the node carries, with its account, at start and every heartbeat", async () => {
    const live: LiveCall[] = [{ call_id: randomUUID(), customer_id: CUSTOMER }];
    const worker = standIn();
    vi.useFakeTimers(FAKE_CLOCK);
    const { reporter } = reporterWith(worker, { heartbeatMs: 50, live: () => [...live] });
    await started(reporter);
    expect(worker.posts).toHaveLength(1);
    expect(worker.posts[0]).toMatchObject({ node_id: "node-a", events: [], live });
    live.push({ call_id: randomUUID(), customer_id: randomUUID() });
    await vi.advanceTimersByTimeAsync(120);
    const heartbeats = worker.posts.filter((p) => p.live);
    expect(heartbeats.length).toBeGreaterThanOrEqual(2);
    expect(heartbeats.at(-1)!.live).toEqual(live);
    expect(new Set(worker.posts.map((p) => p.boot_id)).size).toBe(1);
  });

  it("come early when a call's covered time runs out before the next one, and only then", async () => {
    vi.useFakeTimers(FAKE_CLOCK);
    const worker = standIn();
    const { reporter } = reporterWith(worker, { heartbeatMs: 10_000, live: () => [{ call_id: randomUUID(), customer_id: CUSTOMER }] });
    await started(reporter);
    expect(worker.posts.filter((p) => p.live)).toHaveLength(1);
    reporter.renewBy(Date.now() + 20_000); // after the next regular heartbeat: nothing extra
    reporter.renewBy(Date.now() + 100);
    reporter.renewBy(Date.now() + 150); // later than one already asked for: the same heartbeat serves
    await vi.advanceTimersByTimeAsync(99);
    expect(worker.posts.filter((p) => p.live)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await until("the early heartbeat", () => worker.posts.filter((p) => p.live).length > 1);
    expect(worker.posts.filter((p) => p.live)).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(9_000);
    expect(worker.posts.filter((p) => p.live)).toHaveLength(2);
  });

  it("do not hold up a flush: with no event to send, a heartbeat the Worker does not answer is not waited for", async () => {
    const worker = standIn(async (report) => {
      if (report.events.length === 0) await new Promise(() => {}); // the Worker is gone
      return NO_ANSWER;
    });
    const { reporter } = reporterWith(worker);
    reporter.start();
    const began = Date.now();
    expect(await reporter.flush(5_000)).toBe(true);
    expect(Date.now() - began).toBeLessThan(500);
  });

  it("hand the Worker's answer (grants, calls it ended) to the node", async () => {
    const call = randomUUID();
    const answer: CallReportAnswer = {
      grants: [{ call_id: call, granted_seconds: 120 }],
      ended: [{ call_id: randomUUID(), reason: "node_lost" }],
    };
    const worker = standIn(async () => answer);
    const answers: CallReportAnswer[] = [];
    const { reporter } = reporterWith(worker, { onAnswer: (a) => answers.push(a), live: () => [{ call_id: call, customer_id: CUSTOMER }] });
    await started(reporter);
    await until("the answer handed over", () => answers.length > 0);
    expect(answers).toEqual([answer]);
  });
});
