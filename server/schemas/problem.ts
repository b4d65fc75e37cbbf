import { z } from "zod";
import { apiSchemas } from "./registry.js";

export const ProblemSchema = z
  .object({
    type: z.string().meta({ description: "urn:transcript-service:problem:<code>" }),
    title: z.string().meta({ description: "HTTP status text." }),
    status: z.int().min(400).max(599),
    detail: z.string(),
    code: z.string().meta({ description: "Stable machine-readable error code." }),
    requestId: z.string().meta({ description: "Also sent as X-Request-Id; quote it when reporting a problem." }),
    errors: z
      .array(z.object({ param: z.string(), message: z.string() }))
      .optional()
      .meta({ description: "One entry per invalid parameter (400 invalid_parameter and similar)." }),
    availableLanguages: z
      .array(z.string())
      .optional()
      .meta({ description: "Language codes the video has (404 language_not_available)." }),
    requiredPlans: z.array(z.string()).optional().meta({ description: "Plans that may call the endpoint (403 plan_required)." }),
  })
  .register(apiSchemas, {
    id: "Problem",
    description: "RFC 9457 problem details, sent as application/problem+json.",
  });
