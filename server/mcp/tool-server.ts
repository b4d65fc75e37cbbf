/**
 * An MCP server (the SDK's low-level `Server`) answering tools/list and
 * tools/call with the tools of tools.ts, for one HTTP request (stateless:
 * nothing outlives the request). A tool's failure is a result with
 * `isError: true` whose text is the problem document REST would send (same
 * `code`, `detail`, `errors`, `availableLanguages`); an unknown tool is the
 * protocol's invalid-params error.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool as ListedTool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { problemBody, toHttpError } from "../problem/problem.js";
import { errorFields } from "../log.js";
import type { Tool, ToolCall } from "./tool.js";

/** The MCP server's name and version (the API's version; kept beside server/app/app.ts's API_VERSION, which this module cannot import without a cycle). */
export const SERVER_INFO = { name: "transcript-service", version: "1.0.0" };

export const INSTRUCTIONS =
  "Transcripts of YouTube videos: a stored corpus searchable in full text, and any other video fetched from YouTube on demand. " +
  "Find videos with search_transcripts (or list_channels, then list_channel_videos), then read one with get_transcript (follow nextCursor for long ones; " +
  "startSeconds/endSeconds for a part), or many at once with get_transcripts. A failed call's text is a problem document with a stable code.";

const listings = new WeakMap<readonly Tool[], ListedTool[]>();

/** The tools/list entries, rendered once per tool list. */
export function toolListing(tools: readonly Tool[]): ListedTool[] {
  let listing = listings.get(tools);
  if (listing === undefined) {
    listing = tools.map((tool) => ({
      name: tool.name,
      title: tool.annotations.title,
      description: tool.description,
      inputSchema: jsonSchema(tool.input, "input") as ListedTool["inputSchema"],
      outputSchema: jsonSchema(tool.output, "output") as ListedTool["outputSchema"],
      annotations: tool.annotations,
    }));
    listings.set(tools, listing);
  }
  return listing;
}

/** Draft 7, as the SDK's own servers render zod (the SDK's client validates with Ajv's default draft). */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-7", io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

/**
 * One JSON Schema validator for every request's server: by default each
 * `Server` builds its own Ajv instance, which costs more than a search.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

export function createToolServer(tools: readonly Tool[], call: ToolCall): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: SCHEMA_VALIDATOR });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolListing(tools) }));
  server.setRequestHandler(CallToolRequestSchema, (request): Promise<CallToolResult> => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, "Unknown tool; tools/list names the tools.");
    return callTool(tool, request.params.arguments ?? {}, call);
  });
  return server;
}

/**
 * A tool's answer as the tools/call result: the text first, then the structured content; a failure as a
 * result with `isError`. The keys in the order the SDK's own check of the result puts them, so the
 * route's short path (direct-call.ts) writes the same bytes.
 */
export async function callTool(tool: Tool, args: Record<string, unknown>, call: ToolCall): Promise<CallToolResult> {
  try {
    const answer = await tool.run(args, call);
    return { content: [{ type: "text", text: answer.text }], structuredContent: answer.structured };
  } catch (thrown) {
    return toolError(tool.name, thrown, call);
  }
}

function toolError(name: string, thrown: unknown, { ctx, deps }: ToolCall): CallToolResult {
  const error = toHttpError(thrown);
  if (ctx.signal.aborted) deps.log.debug("client went away", { requestId: ctx.requestId, tool: name, ...errorFields(thrown) });
  else if (error.status === 500) deps.log.error("tool failed", { requestId: ctx.requestId, tool: name, ...errorFields(thrown) });
  else if (error.status >= 500) {
    const cause = error.cause instanceof Error ? error.cause.message : undefined;
    deps.log.warn("upstream problem", { requestId: ctx.requestId, tool: name, status: error.status, code: error.code, cause });
  }
  return { content: [{ type: "text", text: JSON.stringify(problemBody(error, ctx.requestId)) }], isError: true };
}
