/**
 * Phase `mcp`: the same queries as `search_transcripts` over POST /mcp and
 * as GET /v1/search, against one started server, query by query (REST then
 * MCP, the order swapped every round) so a burst of load from elsewhere hits
 * both alike; run.ts does
 * it on a server with the result cache off (every request searches) and on
 * one with it warm (a repeated query: mostly the protocols' own cost). Both are sent
 * as plain HTTP requests over the same kind of keep-alive pool: MCP as the
 * JSON-RPC `tools/call` message and headers the SDK's Streamable HTTP client
 * sends once initialized (the server is stateless, so no session is needed),
 * so the figures are the server's and not the SDK client's parsing.
 */
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { summarize, timeRequests, type LatencySummary, type TimedRequest } from "./latency.js";
import { searchPath, type BenchQuery } from "./query-set.js";

/** The two protocols timed on one server. */
export interface McpPair {
  queries: number;
  /** Passes of each protocol, alternated. */
  rounds: number;
  rest: LatencySummary;
  mcp: LatencySummary;
  /** MCP p50 ÷ REST p50. */
  p50Ratio: number;
}

export interface McpComparison {
  client: string;
  /** On a server with the result cache off (SEARCH_CACHE_ENTRIES=0): every request searches, as a new query does. */
  searched: McpPair;
  /** On a server with its result cache warm: a repeated query, where the protocols' own cost is most of the time. */
  cached: McpPair;
}

export const MCP_CLIENT = "plain JSON-RPC POSTs with the SDK client's headers, over an undici keep-alive pool like REST's";

/** The JSON-RPC request the SDK's client sends for `search_transcripts` with this query's arguments. */
export function mcpSearchRequest(query: BenchQuery, id: number): TimedRequest {
  const args: Record<string, unknown> = { q: query.q, limit: query.limit, offset: query.offset };
  if (query.channel !== undefined) args.channel = query.channel;
  if (query.minViews !== undefined) args.minViews = query.minViews;
  return {
    method: "POST",
    path: "/mcp",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": LATEST_PROTOCOL_VERSION },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "search_transcripts", arguments: args } }),
  };
}

/** A JSON-RPC error or a tool result marked isError counts as an error, as a non-200 does (a search body never holds either text). */
export function mcpFailed(status: number, body: Buffer): boolean {
  if (status !== 200) return true;
  const text = body.toString("utf8");
  return text.includes('"error":{') || text.includes('"isError":true');
}

export async function compareMcpWithRest(options: {
  origin: string;
  apiKey: string;
  queries: readonly BenchQuery[];
  rounds?: number;
  budgetSeconds: number;
  log: (line: string) => void;
}): Promise<McpPair> {
  const rounds = options.rounds ?? 2;
  const rest: TimedRequest[] = options.queries.map((q) => ({ method: "GET", path: searchPath(q) }));
  const mcp = options.queries.map((q, i) => mcpSearchRequest(q, i + 1));
  const pass = (requests: TimedRequest[]) =>
    timeRequests(options.origin, requests, { concurrency: 1, apiKey: options.apiKey, budgetSeconds: options.budgetSeconds, failed: mcpFailed });
  // One unmeasured pass of each first: both protocols' code is compiled, and both find the same pages in memory
  // (and, with the result cache on, the same cached results).
  await pass(rest);
  await pass(mcp);
  const samples = { rest: [] as number[], mcp: [] as number[] };
  const errors = { rest: 0, mcp: 0 };
  const seconds = { rest: 0, mcp: 0 };
  let truncated = false;
  for (let round = 0; round < rounds; round++) {
    // Query by query, the two protocols side by side, the first of each pair swapped every round:
    // what one leaves behind for the next (a shard's last query) and drift over the run reach both alike.
    const mcpFirst = round % 2 === 1;
    const pairs = options.queries.flatMap((_, i) => (mcpFirst ? [mcp[i]!, rest[i]!] : [rest[i]!, mcp[i]!]));
    const timed = await pass(pairs);
    const protocolAt = (j: number): "rest" | "mcp" => ((j % 2 === 0) === mcpFirst ? "mcp" : "rest");
    timed.samples.forEach((sample, j) => {
      if (Number.isNaN(sample)) return;
      samples[protocolAt(j)].push(sample);
      seconds[protocolAt(j)] += sample / 1000;
    });
    for (const j of timed.failedAt) errors[protocolAt(j)]++;
    truncated ||= timed.summary.truncated;
  }
  const restSummary = summarize(samples.rest, errors.rest, seconds.rest, truncated);
  const mcpSummary = summarize(samples.mcp, errors.mcp, seconds.mcp, truncated);
  options.log(`mcp: p50 ${mcpSummary.p50.toFixed(2)} ms vs REST ${restSummary.p50.toFixed(2)} ms`);
  return { queries: options.queries.length, rounds, rest: restSummary, mcp: mcpSummary, p50Ratio: mcpSummary.p50 / restSummary.p50 };
}
