/**
 * The OpenAPI 3.1 document, generated from the route table, the very zod
 * schemas that validate requests, and the tables the server answers from
 * (authentication, rate limit, JSON body, a live fetch's outcomes), so the
 * documentation cannot drift from the behaviour: a problem added to one of
 * those tables is listed on every operation that can answer with it.
 * Request-side schemas are rendered as inputs (what a client sends: defaults
 * make fields optional), response schemas as outputs.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { authProblems } from "../auth/authenticate.js";
import { JSON_BODY_PROBLEMS } from "../http/json-body.js";
import { UNKNOWN_PARAMETER_MESSAGE } from "../http/query.js";
import type { DocumentedProblem } from "../problem/documented-problem.js";
import { API_TAGS, type Route } from "../routes/route.js";
import { liveFetchProblems } from "../live/upstream-problem.js";
import { RATE_LIMITED_PROBLEM } from "../rate-limit/rate-limiter.js";
import { ProblemSchema } from "../schemas/problem.js";
import { apiSchemas } from "../schemas/registry.js";

const COMPONENT = (id: string) => `#/components/schemas/${id}`;
const HEADER = (name: string) => ({ $ref: `#/components/headers/${name}` });

const QUERY_PROBLEM: DocumentedProblem = {
  status: 400,
  code: "invalid_parameter",
  description: `A parameter is missing or malformed, given twice, or unknown ("${UNKNOWN_PARAMETER_MESSAGE}"); errors lists each by name.`,
};
const COMMON_PROBLEMS: DocumentedProblem[] = [{ status: 500, code: "internal_error", description: "Unexpected error (a bug, logged); quote the requestId." }];

/** Problems answered before a route is chosen, so they belong to no operation. */
const BEFORE_ROUTING =
  "Before a route is chosen the server may also answer 400 `bad_request` (not valid HTTP/1.1, or no Host header), " +
  "404 `route_not_found`, 405 `method_not_allowed` (with Allow), 408 `request_timeout`, 413 `payload_too_large` " +
  "(a body announced with Expect: 100-continue), 417 `expectation_failed` and 431 `headers_too_large`.";

export interface OpenApiOptions {
  version: string;
  /** SPDX identifier or name of the license. Default: package.json's `license`. */
  license?: string;
}

function packageLicense(): string | undefined {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { license?: unknown };
  return typeof pkg.license === "string" ? pkg.license : undefined;
}

type JsonObject = Record<string, unknown>;

export function buildOpenApiDocument(allRoutes: readonly Route[], options: OpenApiOptions): JsonObject {
  const routes = allRoutes.filter((route) => route.ownProtocol !== true);
  // Touch the shared Problem schema so it is registered before rendering.
  void ProblemSchema;
  const rendered = z.toJSONSchema(apiSchemas, { uri: COMPONENT, unrepresentable: "any", io: "output" });
  const schemas: Record<string, JsonObject> = {};
  for (const [id, schema] of Object.entries(rendered.schemas)) schemas[id] = stripSchemaMeta(schema as JsonObject);
  // Request bodies are inlined in their operation, rendered from the input side: behind a $ref, generators
  // (openapi-typescript) make a field with a default required, and a client would have to send it.
  for (const route of routes) {
    const id = route.doc.body === undefined ? undefined : apiSchemas.get(route.doc.body)?.id;
    if (id !== undefined) delete schemas[id];
  }

  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    const openApiPath = route.path.replace(/:([A-Za-z]+)/g, "{$1}");
    const operations = (paths[openApiPath] ??= {});
    operations[route.method.toLowerCase()] = operation(route);
  }

  return tidyIntegers({
    openapi: "3.1.0",
    info: {
      title: "Transcript Retrieval Service",
      version: options.version,
      description:
        "Search and retrieve video transcripts. Every /v1 request needs an API key, in the X-API-Key header or as Authorization: Bearer <key> " +
        "(the same keys; both headers with different keys are 400 `conflicting_api_keys`). " +
        "Errors are RFC 9457 problem details (application/problem+json) with a stable `code`. " +
        "Unknown query parameters and unknown body fields are refused with 400 `invalid_parameter`, naming each. " +
        BEFORE_ROUTING,
      ...licenseOf(options.license ?? packageLicense()),
    },
    servers: [{ url: "/", description: "This server." }],
    // Two requirement objects are alternatives: either header will do.
    security: [{ apiKey: [] }, { bearer: [] }],
    tags: Object.entries(API_TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: { schemas, securitySchemes: SECURITY_SCHEMES, headers: referencedHeaders(paths) },
  });
}

const SECURITY_SCHEMES = {
  apiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "The API key (`tsk_…`)." },
  bearer: { type: "http", scheme: "bearer", description: "The same API key, as `Authorization: Bearer <key>`." },
};

const HEADERS: Record<string, JsonObject> = {
  "X-Request-Id": {
    description: "The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies.",
    schema: { type: "string", minLength: 1 },
  },
  "Cache-Control": {
    description: "`no-store`, except a transcript (`private, max-age=300`).",
    schema: { type: "string", minLength: 1 },
  },
  Vary: {
    description:
      "`Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist.",
    schema: { type: "string" },
  },
  "X-RateLimit-Limit": { description: "Requests allowed per key per clock minute.", schema: { type: "integer", minimum: 1 } },
  "X-RateLimit-Remaining": { description: "Requests left in the current window.", schema: { type: "integer", minimum: 0 } },
  "X-RateLimit-Reset": { description: "Unix time (seconds) when the current window ends.", schema: { type: "integer", minimum: 0 } },
  "RateLimit-Policy": {
    description:
      'The quota policy, as a structured field of the IETF httpapi RateLimit header fields draft: `"default";q=100;w=60` ' +
      "(q requests per w seconds, per key).",
    schema: { type: "string" },
  },
  RateLimit: {
    description:
      'What is left of the quota, as a structured field of the IETF httpapi RateLimit header fields draft: `"default";r=42;t=18` ' +
      "(r requests remaining, t seconds until the window ends).",
    schema: { type: "string" },
  },
  "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer", minimum: 1 } },
  ETag: {
    description: "Weak entity tag of the representation; send it back in If-None-Match to get 304 when it has not changed.",
    schema: { type: "string", pattern: '^W/".+"$' },
  },
  "Content-Disposition": {
    description: 'With a text format (text, srt, vtt): `attachment; filename="<videoId>.<lang>.<ext>"`.',
    schema: { type: "string" },
  },
  "WWW-Authenticate": { description: 'The challenge, naming both ways of sending the key: `ApiKey header="X-API-Key", Bearer`.', schema: { type: "string" } },
};

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

  const responseId = apiSchemas.get(doc.response)?.id;
  const jsonContent = { "application/json": { schema: responseId === undefined ? inputSchema(doc.response) : { $ref: COMPONENT(responseId) } } };
  const responses: Record<string, JsonObject> = {
    "200": {
      description: doc.responseDescription,
      headers: headersFor(route, { required: ["X-Request-Id", "Cache-Control", "Vary", ...rateLimit(route), ...(doc.etag ? ["ETag"] : [])] }),
      content: jsonContent,
    },
  };
  for (const mediaType of doc.textResponses ?? []) {
    (responses["200"]!.content as Record<string, JsonObject>)[mediaType] = { schema: { type: "string" } };
  }
  if (doc.textResponses !== undefined && doc.textResponses.length > 0) {
    (responses["200"]!.headers as JsonObject)["Content-Disposition"] = HEADER("Content-Disposition");
  }

  if (doc.etag) {
    responses["304"] = {
      description: "Not modified: If-None-Match matched the ETag. No body.",
      headers: headersFor(route, { required: ["X-Request-Id", "Cache-Control", "Vary", "ETag", ...rateLimit(route)] }),
    };
  }

  const problems = problemsOf(route);
  const statuses = [...new Set(problems.map((p) => p.status))].sort((a, b) => a - b);
  for (const status of statuses) {
    const group = problems.filter((p) => p.status === status);
    const retry = group.every((p) => p.retryAfter) ? "required" : group.some((p) => p.retryAfter) ? "optional" : "none";
    const required = ["X-Request-Id", "Cache-Control", "Vary"];
    if (status === 401) required.push("WWW-Authenticate");
    if (status === 429) required.push(...rateLimit(route));
    if (retry === "required") required.push("Retry-After");
    responses[String(status)] = {
      description: group.map((p) => `\`${p.code}\`: ${p.description}${p.retryAfter && retry === "optional" ? " (with Retry-After)" : ""}`).join("\n\n"),
      headers: headersFor(route, { required, retryAfter: retry !== "none", unauthenticated: status === 401 }),
      content: {
        "application/problem+json": {
          schema: {
            allOf: [
              { $ref: COMPONENT("Problem") },
              { type: "object", properties: { status: { const: status }, code: { type: "string", enum: group.map((p) => p.code) } } },
            ],
          },
        },
      },
    };
  }
  if (doc.unavailable !== undefined) {
    const existing = responses["503"];
    responses["503"] = {
      description: existing === undefined ? doc.unavailable : `${doc.unavailable}\n\n${existing.description as string}`,
      headers: existing?.headers ?? headersFor(route, { required: ["X-Request-Id", "Cache-Control", "Vary"] }),
      content: { ...jsonContent, ...((existing?.content as JsonObject | undefined) ?? {}) },
    };
  }

  return {
    operationId: doc.operationId,
    tags: [doc.tag],
    summary: doc.summary,
    description: doc.description,
    ...(route.auth ? {} : { security: [] }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.body === undefined
      ? {}
      : { requestBody: { required: true, content: { "application/json": { schema: inputSchema(doc.body) } } } }),
    responses,
  };
}

/**
 * Every problem the route can answer with, one entry per (status, code):
 * its own, then those of the tables that apply to it. A code listed twice
 * keeps each distinct description.
 */
export function problemsOf(route: Route): DocumentedProblem[] {
  const { doc } = route;
  const all = [
    ...doc.problems,
    QUERY_PROBLEM,
    ...(doc.body === undefined ? [] : JSON_BODY_PROBLEMS),
    ...(route.auth ? [...authProblems(route.plans !== undefined), RATE_LIMITED_PROBLEM] : []),
    ...(doc.liveFetch ? liveFetchProblems() : []),
    ...COMMON_PROBLEMS,
  ];
  const byKey = new Map<string, DocumentedProblem>();
  for (const problem of all) {
    const key = `${problem.status} ${problem.code}`;
    const seen = byKey.get(key);
    if (seen === undefined) byKey.set(key, { ...problem });
    else if (!seen.description.includes(problem.description)) seen.description = `${seen.description} ${problem.description}`;
  }
  return [...byKey.values()];
}

/** Rate-limit headers every counted answer of an authenticated route carries. */
function rateLimit(route: Route): string[] {
  return route.auth ? ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"] : [];
}

interface HeaderChoice {
  required: string[];
  retryAfter?: boolean;
  /** A 401: refused before the request was counted, so no rate-limit headers. */
  unauthenticated?: boolean;
}

function headersFor(route: Route, choice: HeaderChoice): JsonObject {
  const names = ["X-Request-Id", "Cache-Control", "Vary"];
  if (route.auth && !choice.unauthenticated) names.push("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit");
  if (choice.retryAfter || choice.required.includes("Retry-After")) names.push("Retry-After");
  for (const name of choice.required) if (!names.includes(name)) names.push(name);
  const headers: JsonObject = {};
  for (const name of names) headers[name] = choice.required.includes(name) ? { ...HEADERS[name], required: true } : HEADER(name);
  return headers;
}

/** The header components some response refers to (required headers are written in place, with `required`). */
function referencedHeaders(paths: unknown): Record<string, JsonObject> {
  const text = JSON.stringify(paths);
  return Object.fromEntries(Object.entries(HEADERS).filter(([name]) => text.includes(`"#/components/headers/${name}"`)));
}

function licenseOf(license: string | undefined): JsonObject {
  if (license === undefined) return {};
  // npm's UNLICENSED: no one may use it but its owner. An SPDX id (MIT, Apache-2.0) is also given as `identifier`.
  // SPDX has no id for it; `LicenseRef-` is SPDX's form for a license of one's own.
  if (license === "UNLICENSED") return { license: { name: "Proprietary: all rights reserved", identifier: "LicenseRef-Proprietary" } };
  return { license: /^[A-Za-z0-9.+-]+$/.test(license) ? { name: license, identifier: license } : { name: license } };
}

function inputSchema(schema: z.ZodType): JsonObject {
  return stripSchemaMeta(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonObject);
}

function stripSchemaMeta(schema: JsonObject): JsonObject {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

/**
 * zod writes the safe-integer range as the bounds of every integer; they say
 * nothing a client can use, so they are dropped, and each schema states its
 * own bounds (`.min(0)`, or a documented maximum).
 */
function tidyIntegers<T>(value: T): T {
  if (Array.isArray(value)) for (const item of value) tidyIntegers(item);
  else if (value !== null && typeof value === "object") {
    const node = value as JsonObject;
    if (node.type === "integer") {
      if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
      if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
    }
    for (const child of Object.values(node)) tidyIntegers(child);
  }
  return value;
}
