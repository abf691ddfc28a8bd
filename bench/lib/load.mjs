// Closed-loop HTTP load with autocannon, shared by the benchmarks: every answer is checked
// (a non-2xx or an unexpected body fails the run), and results print beside their baseline.
import autocannon from "autocannon";

/**
 * Runs one request shape for `duration` seconds over `connections` connections.
 * `request.expect`: a substring every answer must contain; `setupRequest`/`done`: per-request hooks.
 */
export async function load(label, base, request, { connections, duration }) {
  let unexpected = 0;
  let sample = "";
  const result = await autocannon({
    url: base,
    connections,
    duration,
    requests: [
      {
        path: request.path,
        method: request.method ?? "GET",
        headers: request.headers,
        body: request.body,
        ...(request.setupRequest ? { setupRequest: request.setupRequest } : {}),
        onResponse: (status, body, context) => {
          request.done?.(context);
          if (request.expect && (status !== 200 || !String(body).includes(request.expect))) {
            unexpected++;
            sample ||= `${status} ${String(body).slice(0, 200)}`;
          }
        },
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0 || unexpected > 0) {
    throw new Error(`${label}: ${result.non2xx} non-2xx, ${result.errors} errors, ${unexpected} unexpected answers (${sample})`);
  }
  return { label, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, total: result.requests.total };
}

/** Prints each result with its ratio to the first (the baseline). */
export function report(results, { connections, duration }) {
  const baseline = results[0].rps;
  console.log(`requests per second, ${connections} connections, ${duration} s each, wrangler dev on this machine`);
  for (const r of results) {
    console.log(
      `  ${r.label.padEnd(36)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${String(r.p50).padStart(4)} ms  p99 ${String(r.p99).padStart(4)} ms  ratio ${(r.rps / baseline).toFixed(2)}  (${r.total} requests)`,
    );
  }
}
