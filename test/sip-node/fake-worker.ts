// A stand-in for the Worker's internal node API over real HTTP (node:http), for node tests that
// need the node's own wiring (reporter, drain, grants) without wrangler dev: a whitelist of given
// ranges with their accounts, admission to one destination, call reports kept and answered as
// the test says, media uploads taken. The answers are the contract's schemas (schema/node-api.ts).
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { parseCidr } from "../../schema/cidr.ts";
import {
  AdmitRequest,
  CallReport,
  CliArrival,
  CliArrivalEnd,
  TestCallProgress,
  type AdmissionTicket,
  type AdmitResponse,
  type CallReportAnswer,
  type CliArrivalAnswer,
  type DestinationTarget,
} from "../../schema/node-api.ts";

export type FakeWorker = Awaited<ReturnType<typeof startFakeWorker>>;

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/**
 * `sources` maps a caller address to its account; every admitted call goes to 127.0.0.1:`destinationPort`
 * (with `destination`'s other fields, and the ticket's `processing`), unless `admit` answers otherwise.
 */
export async function startFakeWorker(options: {
  sources: Record<string, string>;
  destinationPort: number;
  grantedSeconds?: number;
  destination?: Partial<DestinationTarget>;
  processing?: string;
  /** Fields of every ticket besides the defaults (a voice agent's destination, say). */
  ticket?: Partial<AdmissionTicket>;
  admit?: (request: AdmitRequest) => AdmitResponse | undefined;
}) {
  const admissions: AdmitRequest[] = [];
  const tickets: AdmissionTicket[] = [];
  const reports: CallReport[] = [];
  const uploads: string[] = [];
  /** Each upload's bytes, by the upload's path (as in `uploads`). */
  const uploaded = new Map<string, Buffer>();
  /** Test-call progress the node posted, in order. */
  const progress: Array<{ test_call_id: string; progress: TestCallProgress }> = [];
  /** What the next report is answered with (the test sets it); no grants, nothing ended by default. */
  let answer: (report: CallReport) => CallReportAnswer = () => ({ grants: [], ended: [] });
  /** While set, every report is answered with this status (and not kept). */
  let reportFailure: number | null = null;
  /** Calls that reached the node's hosted-number listener, and the ends of those answered, in order. */
  const cliArrivals: CliArrival[] = [];
  const cliEnds: Array<{ arrival_id: string; end: CliArrivalEnd }> = [];
  /** How an arrival is answered (the test sets it): refused 404 by default, as a number the platform does not hold. */
  let arrivalAnswer: (arrival: CliArrival) => CliArrivalAnswer | Promise<CliArrivalAnswer> = () => ({
    answer: false,
    sip_code: 404,
    reason: "Not Found",
  });
  /** While set, every arrival is answered with this status (the Worker failing). */
  let arrivalFailure: number | null = null;
  const ranges = Object.entries(options.sources).map(([address, customer_id]) => {
    const parsed = parseCidr(`${address}/32`);
    if (!("start" in parsed)) throw new Error(parsed.problem);
    return { start: parsed.start, end: parsed.end, customer_id };
  });

  const server = createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    void (async () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const bytes = await readBody(req);
      const body = bytes.toString("utf8");
      if (url.pathname === "/internal/whitelist") return json(200, { version: 1, ranges });
      if (url.pathname === "/internal/monitor/destinations") return json(200, { destinations: [] });
      if (url.pathname === "/internal/monitor/results") return res.writeHead(204).end();
      if (url.pathname === "/internal/calls/admit") {
        const request = AdmitRequest.parse(JSON.parse(body));
        admissions.push(request);
        const answer = options.admit?.(request);
        if (answer) return json(200, answer);
        const ticket: AdmissionTicket = {
          decision: "admit",
          call_id: randomUUID(),
          customer_id: request.customer_id ?? randomUUID(),
          dialed: request.dialed,
          ani: request.ani,
          destination: {
            id: "destination-1",
            host: "127.0.0.1",
            port: options.destinationPort,
            transport: "udp",
            kind: "sip",
            provider: null,
            agent_id: null,
            tech_prefix: null,
            auth: null,
            ...options.destination,
          },
          max_call_seconds: 3_600,
          granted_seconds: options.grantedSeconds ?? 3_600,
          processing: options.processing ?? "relay_only",
          sampled: false,
          sub_customer: null,
          route: "default",
          ...options.ticket,
        };
        tickets.push(ticket);
        return json(200, ticket);
      }
      if (url.pathname === "/internal/calls/report") {
        if (reportFailure !== null) return json(reportFailure, { detail: "not now" });
        const report = CallReport.parse(JSON.parse(body));
        reports.push(report);
        return json(200, answer(report));
      }
      if (req.method === "POST" && url.pathname === "/internal/cli/arrivals") {
        const arrival = CliArrival.parse(JSON.parse(body));
        cliArrivals.push(arrival);
        if (arrivalFailure !== null) return json(arrivalFailure, { detail: "not now" });
        return json(200, await arrivalAnswer(arrival));
      }
      const arrivalEnded = /^\/internal\/cli\/arrivals\/([^/]+)\/end$/.exec(url.pathname);
      if (req.method === "POST" && arrivalEnded) {
        cliEnds.push({ arrival_id: decodeURIComponent(arrivalEnded[1]!), end: CliArrivalEnd.parse(JSON.parse(body)) });
        return res.writeHead(204).end();
      }
      const progressed = /^\/internal\/test-calls\/([^/]+)\/progress$/.exec(url.pathname);
      if (req.method === "POST" && progressed) {
        progress.push({ test_call_id: decodeURIComponent(progressed[1]!), progress: TestCallProgress.parse(JSON.parse(body)) });
        return res.writeHead(204).end();
      }
      if (req.method === "PUT" && url.pathname.includes("/media/")) {
        uploads.push(`${url.pathname}${url.search}`);
        uploaded.set(`${url.pathname}${url.search}`, bytes);
        return json(200, { key: url.pathname, size: body.length });
      }
      json(404, { detail: "not here" });
    })().catch((err: unknown) => json(500, { detail: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    admissions,
    tickets,
    reports,
    uploads,
    uploaded,
    progress,
    cliArrivals,
    cliEnds,
    /** Every event reported, in the order the Worker got them. */
    events: () => reports.flatMap((r) => r.events),
    answerWith(next: (report: CallReport) => CallReportAnswer) {
      answer = next;
    },
    answerArrivalsWith(next: (arrival: CliArrival) => CliArrivalAnswer | Promise<CliArrivalAnswer>) {
      arrivalAnswer = next;
    },
    /** Arrivals answered with `status` from now on (null: answered again). */
    failArrivals(status: number | null) {
      arrivalFailure = status;
    },
    /** Reports answered with `status` from now on (null: taken again). */
    failReports(status: number | null) {
      reportFailure = status;
    },
    /** Waits until `check` holds (polling), or throws after `timeoutMs`. */
    async until<T>(check: () => T | undefined | null | false, timeoutMs = 10_000): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = check();
        if (value) return value;
        if (Date.now() > deadline) throw new Error("timed out waiting for the fake Worker");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
