/**
 * The MCP tools over stdio, for clients that launch servers as processes
 * (desktop apps, editors): an MCP server on stdin/stdout whose tools/list
 * and tools/call are forwarded to a running service's POST /mcp. The tools,
 * their answers and their errors are the service's own; nothing is defined
 * twice. An answer the service refuses over HTTP (a bad key, the rate limit,
 * an unreachable service) comes back as a tool error holding the problem
 * document, so the model reads the same shape whatever failed.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ListToolsResult,
} from "@modelcontextprotocol/sdk/types.js";
import { INSTRUCTIONS, SERVER_INFO } from "../server/mcp/tool-server.js";

export interface StdioBridgeOptions {
  /** Base URL of the service (TRANSCRIPTS_URL). */
  baseUrl: string;
  /** Its API key (TRANSCRIPTS_API_KEY). */
  apiKey: string;
  /** Default: process.stdin / process.stdout. */
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

type Outcome = { kind: "result"; result: unknown } | { kind: "error"; code: number; message: string } | { kind: "problem"; problem: Record<string, unknown> };

/** Serves until stdin ends; resolves with the server once it listens. */
export async function startStdioBridge(options: StdioBridgeOptions): Promise<Server> {
  const endpoint = `${options.baseUrl}/mcp`;
  let nextId = 1;

  const forward = async (method: string, params: unknown, signal: AbortSignal): Promise<Outcome> => {
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: "POST",
        signal,
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "X-API-Key": options.apiKey,
          "MCP-Protocol-Version": LATEST_PROTOCOL_VERSION,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      return { kind: "problem", problem: { status: 503, code: "service_unreachable", detail: `The transcript service at ${options.baseUrl} could not be reached (${cause}).` } };
    }
    const text = await response.text();
    let body: Record<string, any> | undefined;
    try {
      body = JSON.parse(text) as Record<string, any>;
    } catch {
      body = undefined;
    }
    if (body?.jsonrpc === "2.0" && body.error !== undefined) return { kind: "error", code: Number(body.error.code), message: String(body.error.message) };
    if (response.ok && body?.jsonrpc === "2.0") return { kind: "result", result: body.result };
    if (body !== undefined && typeof body.code === "string") {
      const retryAfter = response.headers.get("retry-after");
      return { kind: "problem", problem: { ...body, ...(retryAfter === null ? {} : { retryAfterSeconds: Number(retryAfter) }) } };
    }
    return { kind: "problem", problem: { status: response.status, code: "unexpected_response", detail: `The transcript service answered HTTP ${response.status}.` } };
  };

  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const outcome = await forward("tools/list", request.params ?? {}, extra.signal);
    if (outcome.kind === "result") return outcome.result as ListToolsResult;
    if (outcome.kind === "error") throw new McpError(outcome.code, outcome.message);
    throw new McpError(ErrorCode.InternalError, `${String(outcome.problem.code)}: ${String(outcome.problem.detail)}`);
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const outcome = await forward("tools/call", request.params, extra.signal);
    if (outcome.kind === "result") return outcome.result as CallToolResult;
    if (outcome.kind === "error") throw new McpError(outcome.code, outcome.message);
    return { isError: true, content: [{ type: "text", text: JSON.stringify(outcome.problem) }] };
  });
  await server.connect(new StdioServerTransport(options.stdin as never, options.stdout as never));
  return server;
}
