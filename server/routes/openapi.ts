/** GET /v1/openapi.json: the OpenAPI 3.1 document. No key needed, so clients can discover the API. */
import { z } from "zod";
import type { Route } from "./route.js";

export const openapiRoute: Route = {
  method: "GET",
  path: "/v1/openapi.json",
  auth: false,
  doc: {
    operationId: "openapi",
    tag: "Service",
    summary: "This OpenAPI 3.1 document",
    description: "The contract of this API, generated from the schemas that validate requests. No API key needed; rendered at /docs.",
    response: z.looseObject({ openapi: z.string() }),
    responseDescription: "The OpenAPI document.",
    problems: [],
  },
  handle(_ctx, { openapi }) {
    return { body: openapi() };
  },
};
