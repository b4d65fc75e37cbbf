/** What an MCP tool is here: its schemas and annotations for tools/list, and a run over the REST routes' own code. */
import type { z } from "zod";
import type { RequestContext } from "../http/context.js";
import type { RouteDeps } from "../routes/route.js";

export interface ToolCall {
  /** The HTTP request carrying the call: its key, signal and deadline. */
  ctx: RequestContext;
  deps: RouteDeps;
}

export interface ToolAnswer {
  /** The `structuredContent`, matching the tool's output schema. */
  structured: Record<string, unknown>;
  /** The same answer as text a person (or a model) reads. */
  text: string;
}

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  /** true where the tool may reach YouTube. */
  openWorldHint: boolean;
}

export interface Tool {
  name: string;
  description: string;
  /** Documents the arguments (tools/list); `run` validates them, so a bad one is an `invalid_parameter` tool error. */
  input: z.ZodObject;
  output: z.ZodObject;
  annotations: ToolAnnotations;
  /** Throws an HttpError for every outcome that is not an answer, with the code REST gives. */
  run(args: Record<string, unknown>, call: ToolCall): Promise<ToolAnswer> | ToolAnswer;
}
