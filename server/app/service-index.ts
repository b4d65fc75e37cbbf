/**
 * GET / and GET /v1: where to go from here, without a key. Someone who
 * opens the server's address (or the API's base path) in a browser or with
 * curl gets the links to the reference, the OpenAPI document, the API and
 * the MCP endpoint, and the list of operations, rather than a 404. The list
 * is read from the OpenAPI document, so it names every operation the
 * document does, and nothing else.
 */
import { z } from "zod";
import { DOCS_PATH } from "./docs-page.js";
import type { Route, RouteDeps } from "../routes/route.js";
import { mcpRoute } from "../mcp/mcp-route.js";
import { apiSchemas } from "../schemas/registry.js";
import { openapiRoute } from "../routes/openapi.js";

export const API_BASE_PATH = "/v1";

const EndpointSchema = z.object({
  method: z.enum(["GET", "POST"]),
  path: z.string().meta({ description: "The path, with parameters in braces as the OpenAPI document writes them." }),
  summary: z.string(),
  key: z.boolean().meta({ description: "Whether the endpoint needs an API key." }),
});

export const ServiceIndexSchema = z
  .object({
    name: z.string(),
    version: z.string().meta({ description: "The API's version." }),
    docs: z.string().meta({ description: "The API reference, rendered for reading (HTML)." }),
    openapi: z.string().meta({ description: "The OpenAPI 3.1 document." }),
    api: z.string().meta({ description: "The base path of the API; answers this index too." }),
    mcp: z.string().meta({ description: "The Model Context Protocol endpoint for LLM agents (POST, Streamable HTTP)." }),
    auth: z.string().meta({ description: "How to send the API key." }),
    endpoints: z.array(EndpointSchema).meta({ description: "Every operation of the OpenAPI document, then the MCP endpoint." }),
  })
  .register(apiSchemas, { id: "ServiceIndex" });

type ServiceIndex = z.output<typeof ServiceIndexSchema>;

const AUTH =
  "Endpoints with key: true need an API key, in the X-API-Key header or as Authorization: Bearer <key> (npm run keys -- create makes one); the others need none.";

function indexRoute(path: string, operationId: string, summary: string): Route {
  return {
    method: "GET",
    path,
    auth: false,
    doc: {
      operationId,
      tag: "Service",
      summary,
      description: "Links to the reference (/docs), the OpenAPI document, the API and the MCP endpoint, and every operation with whether it needs a key. No API key needed.",
      response: ServiceIndexSchema,
      responseDescription: "The index.",
      problems: [],
    },
    handle(_ctx, { openapi }) {
      return { body: serviceIndex(openapi) };
    },
  };
}

export const serviceIndexRoute = indexRoute("/", "serviceIndex", "Where to start: links and the list of endpoints");
export const apiIndexRoute = indexRoute(API_BASE_PATH, "apiIndex", "The same index, at the API's base path");

/** One index per OpenAPI document (the document is built once per server). */
const built = new WeakMap<object, ServiceIndex>();

function serviceIndex(openapi: RouteDeps["openapi"]): ServiceIndex {
  const document = openapi() as OpenApiDocument;
  let index = built.get(document);
  if (index === undefined) {
    const endpoints = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => ({
        method: method.toUpperCase() as "GET" | "POST",
        path,
        summary: operation.summary,
        // An operation without a `security` of its own has the document's: a key.
        key: operation.security === undefined,
      })),
    );
    endpoints.push({ method: mcpRoute.method, path: mcpRoute.path, summary: mcpRoute.doc.summary, key: mcpRoute.auth });
    index = {
      name: document.info.title,
      version: document.info.version,
      docs: DOCS_PATH,
      openapi: openapiRoute.path,
      api: API_BASE_PATH,
      mcp: mcpRoute.path,
      auth: AUTH,
      endpoints,
    };
    built.set(document, index);
  }
  return index;
}

interface OpenApiDocument {
  info: { title: string; version: string };
  paths: Record<string, Record<string, { summary: string; security?: unknown[] }>>;
}
