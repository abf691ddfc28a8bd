import { z } from "@hono/zod-openapi";

export const AnalyzeQueuedSchema = z
  .object({
    job_id: z.uuid(),
    analysis_status: z.string().openapi({ description: "queued: the job waits for the pipeline", example: "queued" }),
  })
  .openapi("AnalyzeQueued");

export const AiModeRequestSchema = z
  .object({ mode: z.string().min(1).max(40).openapi({ description: "A mode of GET /customer/ai-modes", example: "power" }) })
  .openapi("AiModeRequest");
