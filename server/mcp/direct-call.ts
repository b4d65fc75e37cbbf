/**
 * The route's short path for the message that is most of MCP's traffic: a
 * plain tools/call of a known tool. Through the SDK, each such call builds,
 * connects and closes a server and a transport, checks the message with
 * four schemas and the result with a fifth, and costs about what a cached
 * search costs. A call that passes every check the SDK would make here
 * (the transport's on the headers, the protocol's on the message) is
 * answered by the route with what the SDK would answer: the same result
 * (tool-server.ts's callTool) in the same JSON-RPC response. Everything else
 * (initialize, tools/list, ping, notifications, an unknown tool, `_meta` or
 * `task` in the params, headers the transport refuses, a malformed message)
 * goes through the SDK as before, so every refusal is still the SDK's own.
 */
import type { IncomingHttpHeaders } from "node:http";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import { SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCResultResponse } from "@modelcontextprotocol/sdk/types.js";
import type { Tool, ToolCall } from "./tool.js";
import { callTool } from "./tool-server.js";

export interface DirectCall {
  id: string | number;
  tool: Tool;
  args: Record<string, unknown>;
}

const MESSAGE_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const PARAMS_KEYS = new Set(["name", "arguments"]);

/** The call, when `message` is a plain tools/call of one of `tools` that the transport would let through; else undefined. */
export function directCall(message: unknown, headers: IncomingHttpHeaders, tools: readonly Tool[]): DirectCall | undefined {
  if (!isPlainObject(message) || !hasOnly(message, MESSAGE_KEYS)) return undefined;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== "2.0" || method !== "tools/call" || !(typeof id === "string" || Number.isSafeInteger(id))) return undefined;
  if (!isPlainObject(params) || !hasOnly(params, PARAMS_KEYS)) return undefined;
  const args = params.arguments === undefined ? {} : params.arguments;
  // Arguments of the wrong shape (null included) and a "__proto__" argument are refused by call-params.ts on the SDK's path.
  if (!isPlainObject(args) || Object.hasOwn(args, "__proto__")) return undefined;
  const tool = tools.find((t) => t.name === params.name);
  if (tool === undefined || !transportAccepts(headers)) return undefined;
  return { id: id as string | number, tool, args };
}

/** The JSON-RPC response to a direct call, as the SDK's protocol writes it. */
export async function answerDirectCall(direct: DirectCall, call: ToolCall): Promise<JSONRPCResultResponse> {
  return { result: await callTool(direct.tool, direct.args, call), jsonrpc: "2.0", id: direct.id };
}

/** The Streamable HTTP transport's checks on a POST (stateless, no DNS-rebinding options): Accept, Content-Type, protocol version. */
function transportAccepts(headers: IncomingHttpHeaders): boolean {
  const accept = headerValue(headers.accept);
  const version = headerValue(headers["mcp-protocol-version"]);
  return (
    accept !== undefined &&
    accept.includes("application/json") &&
    accept.includes("text/event-stream") &&
    isJsonContentType(headerValue(headers["content-type"])) &&
    (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version))
  );
}

/** A header as the web `Headers` the transport reads gives it: repeated values joined. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

function hasOnly(value: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  for (const key in value) if (!keys.has(key)) return false;
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
