/** GET /healthz: liveness plus which artifact set is being served. No key needed. */
import { z } from "zod";
import type { Route } from "../http/route.js";
import { apiSchemas } from "../schemas/registry.js";

export const HealthSchema = z
  .object({
    status: z.literal("ok"),
    builtAt: z.string().nullable().meta({ description: "When the served artifact set was built (ISO 8601)." }),
    schemaVersion: z.int().nullable().meta({ description: "Artifact schema version." }),
  })
  .register(apiSchemas, { id: "Health" });

export const healthRoute: Route = {
  method: "GET",
  path: "/healthz",
  auth: false,
  doc: {
    operationId: "health",
    summary: "Liveness and the artifact set served",
    response: HealthSchema,
    responseDescription: "The server is up.",
    problems: [],
  },
  handle(_ctx, { health }) {
    const { builtAt, schemaVersion } = health();
    return { body: { status: "ok", builtAt, schemaVersion } };
  },
};
