/**
 * POST /mcp: the Model Context Protocol over Streamable HTTP (the SDK's
 * transport in stateless mode: a new server and transport per request, JSON
 * answers, no sessions), so any worker or replica answers any request. The
 * route table does what it does for REST first: the Origin rule (before the
 * key), the key (X-API-Key or Authorization: Bearer), the one rate-limit
 * window, the body cap; then the JSON-RPC message goes to the tools. A
 * plain tools/call of a known tool, most of the traffic, is answered by the
 * route itself with the SDK's answer, without a server and transport built
 * for it (direct-call.ts).
 * GET and DELETE (a server-sent stream, ending a session) have nothing to
 * serve without sessions: the router answers them 405.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { HttpError } from "../problem/http-error.js";
import { readJsonBody } from "../http/json-body.js";
import { escapeJsonText, RawJson } from "../http/respond.js";
import type { Route, RouteResult } from "../routes/route.js";
import type { RequestContext } from "../http/context.js";
import { errorFields } from "../log.js";
import { malformedCallAnswer } from "./call-params.js";
import { answerDirectCall, directCall, headerValue } from "./direct-call.js";
import { allowedOrigins, assertOriginAllowed } from "./origin.js";
import { createToolServer } from "./tool-server.js";
import { TOOLS } from "./tools.js";

export const MCP_PATH = "/mcp";

/** The headers the SDK's transport reads (the rest of the request is ours). */
const PASSED_HEADERS = ["accept", "content-type", "mcp-protocol-version"];

const JsonRpcMessageSchema = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.int()]).optional().meta({ description: "Absent on notifications." }),
    method: z.string().meta({ description: "initialize, notifications/initialized, tools/list, tools/call, ping." }),
    params: z.record(z.string(), z.unknown()).optional(),
  });

const JsonRpcResponseSchema = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.int()]).nullable(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.int(), message: z.string() }).optional(),
  });

export const mcpRoute: Route = {
  ownProtocol: true,
  method: "POST",
  path: MCP_PATH,
  auth: true,
  admit: (ctx, config) => assertOriginAllowed(ctx.req.headers.origin, allowedOrigins(config)),
  doc: {
    operationId: "mcp",
    tag: "Service",
    summary: "Model Context Protocol endpoint (Streamable HTTP, stateless) for LLM agents",
    description:
      "One JSON-RPC 2.0 message per request (no batches), Accept: application/json, text/event-stream; answered with JSON. " +
      "Tools: search_transcripts, get_transcript, get_transcripts, list_channels, list_channel_videos, get_stats (docs/mcp.md). " +
      "The key may also be sent as Authorization: Bearer. A request with an Origin header not listed in CORS_ORIGINS gets 403. " +
      "Protocol errors (malformed JSON-RPC, 406/415 for Accept/Content-Type) are JSON-RPC error objects; a tool's failure is a result with isError.",
    body: JsonRpcMessageSchema,
    response: JsonRpcResponseSchema,
    responseDescription: "The JSON-RPC response (202 without a body for a notification).",
    problems: [
      { status: 403, code: "origin_not_allowed", description: "The Origin header names an origin CORS_ORIGINS does not list." },
      { status: 413, code: "payload_too_large", description: "The body exceeds MAX_BODY_BYTES." },
    ],
  },
  async handle(ctx, deps) {
    let message: unknown;
    try {
      message = await readJsonBody(ctx.req, { maxBytes: deps.config.maxBodyBytes });
    } catch (error) {
      // Unreadable JSON is JSON-RPC's parse error; a body too large or cut short stays the HTTP problem REST gives.
      if (error instanceof HttpError && error.code === "invalid_json" && error.cause === undefined) return jsonRpcError(400, -32700, `Parse error: ${error.detail}`);
      throw error;
    }
    // Batches left the protocol in 2025-06-18; one message per request also keeps one request one count against the rate limit.
    if (Array.isArray(message)) return jsonRpcError(400, -32600, "Invalid Request: send one JSON-RPC message per request (no batches).");
    const direct = directCall(message, ctx.req.headers, TOOLS);
    if (direct !== undefined) return { status: 200, body: await answerDirectCall(direct, { ctx, deps }) };
    const server = createToolServer(TOOLS, { ctx, deps });
    const transport = new AnsweringTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      transport.screenCalls();
      // A request's answer arrives through `send`; the transport's own answers (refusals, a notification's 202) as a Response.
      const outcome = await Promise.race([transport.handleRequest(webRequest(ctx), { parsedBody: message }), transport.answered]);
      return outcome instanceof Response ? await routeResult(outcome) : { status: 200, body: outcome };
    } finally {
      // Closing only releases what the request set up; done once the answer is on its way, it is off the request's path.
      setImmediate(() => void server.close().catch((error: unknown) => deps.log.warn("MCP server close failed", errorFields(error))));
    }
  },
};

/**
 * The web Request the SDK's transport reads: only the method and the headers
 * it checks (the body is passed parsed). Those few headers take few values,
 * so one Request per combination is kept and handed out again: nothing reads
 * or changes a body-less Request, and building one costs a good part of the
 * protocol's time per call.
 */
const webRequests = new Map<string, Request>();
const MAX_WEB_REQUESTS = 64;

function webRequest(ctx: RequestContext): Request {
  const values = PASSED_HEADERS.map((name) => headerValue(ctx.req.headers[name]));
  const key = JSON.stringify(values);
  let request = webRequests.get(key);
  if (request === undefined) {
    const headers = new Headers();
    PASSED_HEADERS.forEach((name, i) => {
      if (values[i] !== undefined) headers.set(name, values[i]);
    });
    request = new Request(`http://localhost${MCP_PATH}`, { method: "POST", headers });
    if (webRequests.size >= MAX_WEB_REQUESTS) webRequests.clear();
    webRequests.set(key, request);
  }
  return request;
}

/**
 * The SDK's transport, handing the JSON-RPC response to the route table as
 * the object it is. In JSON mode with one message per request the HTTP body
 * is exactly that message: the transport would serialise it into a web
 * `Response` only for the route to read the text back out, which costs more
 * per request than the rest of the protocol. So `send` keeps a response
 * (`answered`) instead of passing it on; everything else (requests it
 * refuses, notifications) goes through the transport as usual. The pending
 * exchange it leaves is released when the server closes.
 */
class AnsweringTransport extends WebStandardStreamableHTTPServerTransport {
  readonly answered: Promise<JSONRPCMessage>;
  readonly #answer: (message: JSONRPCMessage) => void;

  constructor(options: ConstructorParameters<typeof WebStandardStreamableHTTPServerTransport>[0]) {
    super(options);
    let answer: (message: JSONRPCMessage) => void = () => undefined;
    this.answered = new Promise((resolve) => {
      answer = resolve;
    });
    this.#answer = answer;
  }

  /**
   * Answers a tools/call whose params have the wrong shape here (call-params.ts): after the transport's own
   * checks (Accept, Content-Type), before the server's parse would make it an internal error. Call it once the
   * server is connected, which is when `onmessage` is set.
   */
  screenCalls(): void {
    const deliver = this.onmessage;
    this.onmessage = (message, extra) => {
      const refusal = malformedCallAnswer(message);
      if (refusal !== undefined) this.#answer(refusal);
      else deliver?.(message, extra);
    };
  }

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ("id" in message && ("result" in message || "error" in message)) {
      this.#answer(message);
      return;
    }
    return super.send(message, options);
  }
}

/** The transport's own answer as the route table writes it (with the request id, rate-limit and security headers, compression). */
async function routeResult(response: Response): Promise<RouteResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== "content-type" && name !== "content-length") headers[name] = value;
  });
  const text = await response.text();
  return { status: response.status, headers, ...(text === "" ? {} : { body: new RawJson(escapeJsonText(text)) }) };
}

function jsonRpcError(status: number, code: number, message: string): RouteResult {
  return { status, body: { jsonrpc: "2.0", error: { code, message }, id: null } };
}
