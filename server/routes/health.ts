/**
 * GET /healthz: liveness, the server's health and which artifact set is being
 * served; GET /readyz: whether it should get traffic. No key needed for either.
 */
import { z } from "zod";
import type { Route } from "./route.js";
import { apiSchemas } from "../schemas/registry.js";

const UnreachableSchema = z
  .array(z.enum(["redis", "postgresql"]))
  .optional()
  .meta({
    description:
      "Shared services this replica cannot reach now (present only when some are): `redis`: rate limits counted per process, " +
      "fetch claims and the negative cache in memory; `postgresql`: live fetches stored here and queued for the shared store, keys from the copy in memory.",
  });

export const HealthSchema = z
  .object({
    status: z.enum(["ok", "degraded", "unhealthy"]).meta({
      description:
        "`ok`; `degraded`: answering from an earlier artifact set because the published one failed verification or broke while served, " +
        "or a shared service (`unreachable`) is down and a local fallback serves instead; " +
        "`unhealthy` (answered with 503): the served set's database is damaged and no earlier verified set could replace it.",
    }),
    reason: z.string().optional().meta({ description: "Why the status is not `ok`." }),
    unreachable: UnreachableSchema,
    builtAt: z.string().nullable().meta({ description: "When the served artifact set was built (ISO 8601)." }),
    schemaVersion: z.int().min(0).nullable().meta({ description: "Artifact schema version." }),
  })
  .register(apiSchemas, { id: "Health" });

export const ReadinessSchema = z
  .object({
    ready: z.boolean(),
    status: z.enum(["ok", "degraded", "unhealthy"]),
    reason: z.string().optional().meta({ description: "Why the server is not ready, or why its status is not `ok`." }),
    unreachable: UnreachableSchema,
  })
  .register(apiSchemas, { id: "Readiness" });

export const healthRoute: Route = {
  method: "GET",
  path: "/healthz",
  auth: false,
  doc: {
    operationId: "health",
    tag: "Service",
    summary: "Liveness, health and the artifact set served",
    description: "Whether the server is up and healthy, and when the artifact set it serves was built. No API key needed.",
    response: HealthSchema,
    responseDescription: "The server is up (`ok` or `degraded`).",
    problems: [],
    unavailable: "The server is unhealthy: the served artifact set's database is damaged (the body's reason field says why).",
  },
  handle(_ctx, { health }) {
    const { builtAt, schemaVersion, condition, unreachable } = health();
    return { status: condition.status === "unhealthy" ? 503 : 200, body: { ...condition, ...unreachableField(unreachable), builtAt, schemaVersion } };
  },
};

export const readyRoute: Route = {
  method: "GET",
  path: "/readyz",
  auth: false,
  doc: {
    operationId: "ready",
    tag: "Service",
    summary: "Readiness: whether the server should get traffic",
    description: "200 once an artifact set is loaded, its search memory filled (and, at a start on a set verified earlier, its files read into the page cache) and the server is not unhealthy; 503 until then (the server answers meanwhile, more slowly). No API key needed.",
    response: ReadinessSchema,
    responseDescription: "Ready: an artifact set is loaded, its search memory filled (its files read into the page cache where that was due), and the server is not unhealthy.",
    problems: [],
    unavailable: "Not ready: the first artifact set's search memory is still being filled (or its files read into the page cache), or the server is unhealthy (the body's reason field says why).",
  },
  handle(_ctx, { health }) {
    const { condition, ready, unreachable } = health();
    const reason = "reason" in condition ? condition.reason : ready ? undefined : "the artifact set is still loading";
    return { status: ready ? 200 : 503, body: { ready, status: condition.status, ...(reason === undefined ? {} : { reason }), ...unreachableField(unreachable) } };
  },
};

function unreachableField(unreachable: string[]): { unreachable?: string[] } {
  return unreachable.length === 0 ? {} : { unreachable };
}
