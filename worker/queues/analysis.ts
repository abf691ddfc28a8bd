// The analysis queue's consumer: each message names one job (services/analysis/pipeline.ts).
// A job that can be tried again is retried with backoff; one that is done, failed for good or
// gone is acknowledged.
import type { Bindings } from "../env.ts";
import { loadConfig } from "../env.ts";
import { describeError } from "../lib/errors.ts";
import { runAnalysisJob, type AnalysisMessage } from "../services/analysis/pipeline.ts";
import { newServices } from "../composition.ts";

export async function consumeAnalysis(batch: MessageBatch, env: Bindings, ctx: ExecutionContext): Promise<void> {
  const services = newServices(env, loadConfig(env), { origin: "https://queue.invalid", background: (w) => ctx.waitUntil(w) });
  for (const message of batch.messages) {
    const jobId = (message.body as Partial<AnalysisMessage> | null)?.job_id;
    if (typeof jobId !== "string") {
      console.error("analysis queue: a message without a job_id was dropped");
      message.ack();
      continue;
    }
    try {
      const result = await runAnalysisJob(services, jobId);
      if (result.outcome === "retry") message.retry({ delaySeconds: result.delaySeconds });
      else message.ack();
    } catch (err) {
      // The job's own bookkeeping failed (D1 unreachable): let the queue try the message again.
      console.error(`analysis job ${jobId}: unexpected failure`, describeError(err));
      message.retry({ delaySeconds: 30 });
    }
  }
}
