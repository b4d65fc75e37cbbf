/**
 * The OpenAPI 3.1 document, generated from the route table and the very zod
 * schemas that validate requests, so the documentation cannot drift from the
 * behaviour. Request-side schemas are rendered as inputs (what a client
 * sends: defaults make fields optional), response schemas as outputs.
 */
import { z } from "zod";
import type { Route } from "./http/route.js";
import { ProblemSchema } from "./schemas/problem.js";
import { apiSchemas } from "./schemas/registry.js";

const COMPONENT = (id: string) => `#/components/schemas/${id}`;
const AUTH_PROBLEMS = [
  { status: 401, code: "missing_api_key", description: "No X-API-Key header." },
  { status: 401, code: "invalid_api_key", description: "The key is malformed, unknown or revoked." },
  { status: 403, code: "subscription_expired", description: "The key's subscription has expired." },
  { status: 429, code: "rate_limited", description: "Too many requests in this minute; see Retry-After." },
];
const COMMON_PROBLEMS = [{ status: 500, code: "internal_error", description: "Unexpected error; quote the requestId." }];

export interface OpenApiOptions {
  version: string;
}

type JsonObject = Record<string, unknown>;

export function buildOpenApiDocument(routes: readonly Route[], options: OpenApiOptions): JsonObject {
  // Touch the shared Problem schema so it is registered before rendering.
  void ProblemSchema;
  const rendered = z.toJSONSchema(apiSchemas, { uri: COMPONENT, unrepresentable: "any", io: "output" });
  const schemas: Record<string, JsonObject> = {};
  for (const [id, schema] of Object.entries(rendered.schemas)) schemas[id] = stripSchemaMeta(schema as JsonObject);
  // Request bodies are inputs: render them again from the input side.
  for (const route of routes) {
    const body = route.doc.body;
    const id = body === undefined ? undefined : apiSchemas.get(body)?.id;
    if (body !== undefined && id !== undefined) schemas[id] = inputSchema(body);
  }

  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    const openApiPath = route.path.replace(/:([A-Za-z]+)/g, "{$1}");
    const operations = (paths[openApiPath] ??= {});
    operations[route.method.toLowerCase()] = operation(route);
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "Transcript Retrieval Service",
      version: options.version,
      description:
        "Search and retrieve video transcripts. Every /v1 request needs an X-API-Key header. Errors are RFC 9457 problem details (application/problem+json).",
    },
    servers: [{ url: "/" }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "X-API-Key" } },
      headers: {
        "X-RateLimit-Limit": { description: "Requests allowed per window.", schema: { type: "integer" } },
        "X-RateLimit-Remaining": { description: "Requests left in the current window.", schema: { type: "integer" } },
        "X-RateLimit-Reset": { description: "Unix time (seconds) when the window ends.", schema: { type: "integer" } },
        "X-Request-Id": { description: "Request id, also in problem bodies.", schema: { type: "string" } },
      },
    },
  };
}

function operation(route: Route): JsonObject {
  const { doc } = route;
  const parameters: JsonObject[] = [];
  for (const [location, schema] of [
    ["path", doc.params],
    ["query", doc.query],
  ] as const) {
    if (schema === undefined) continue;
    for (const [name, field] of Object.entries(schema.shape)) {
      const rendered = inputSchema(field as z.ZodType);
      const { description, ...rest } = rendered;
      const isOptional = (field as z.ZodType).safeParse(undefined).success;
      parameters.push({
        name,
        in: location,
        required: location === "path" || !isOptional,
        ...(typeof description === "string" ? { description } : {}),
        schema: rest,
      });
    }
  }

  const rateLimitHeaders = route.auth
    ? {
        "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
        "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
        "X-RateLimit-Reset": { $ref: "#/components/headers/X-RateLimit-Reset" },
      }
    : {};
  const responseId = apiSchemas.get(doc.response)?.id;
  const responses: Record<string, JsonObject> = {
    "200": {
      description: doc.responseDescription,
      headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" }, ...rateLimitHeaders },
      content: {
        "application/json": { schema: responseId === undefined ? inputSchema(doc.response) : { $ref: COMPONENT(responseId) } },
      },
    },
  };
  for (const mediaType of doc.textResponses ?? []) {
    (responses["200"]!.content as Record<string, JsonObject>)[mediaType] = { schema: { type: "string" } };
  }
  const problems = [...doc.problems, ...(route.auth ? AUTH_PROBLEMS : []), ...COMMON_PROBLEMS];
  for (const status of [...new Set(problems.map((p) => p.status))].sort()) {
    const lines = problems.filter((p) => p.status === status).map((p) => `\`${p.code}\`: ${p.description}`);
    responses[String(status)] = {
      description: lines.join("\n\n"),
      content: { "application/problem+json": { schema: { $ref: COMPONENT("Problem") } } },
    };
  }
  if (doc.unavailable !== undefined) {
    responses["503"] = { description: doc.unavailable, content: responses["200"]!.content as JsonObject };
  }
  if (route.path === "/v1/transcript/:videoId") {
    responses["304"] = { description: "Not modified (If-None-Match matched the ETag)." };
  }

  const bodyId = doc.body === undefined ? undefined : apiSchemas.get(doc.body)?.id;
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description === undefined ? {} : { description: doc.description }),
    ...(route.auth ? {} : { security: [] }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.body === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: bodyId === undefined ? inputSchema(doc.body) : { $ref: COMPONENT(bodyId) } },
            },
          },
        }),
    responses,
  };
}

function inputSchema(schema: z.ZodType): JsonObject {
  return stripSchemaMeta(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonObject);
}

function stripSchemaMeta(schema: JsonObject): JsonObject {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}
