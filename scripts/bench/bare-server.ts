/**
 * The serving baseline: a bare node:http server that answers each path (and
 * each POST body) with bytes recorded from the real server. Run as its own
 * process, like the real server, so both are measured the same way.
 *
 *   node --import tsx scripts/bench/bare-server.ts RESPONSES.json
 * prints its port on the first stdout line.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

interface RecordedResponses {
  get: Record<string, string>;
  post: Record<string, string>;
}

const file = process.argv[2];
if (!file) {
  process.stderr.write("usage: bare-server.ts RESPONSES.json\n");
  process.exit(2);
}
const recorded = JSON.parse(readFileSync(file, "utf8")) as RecordedResponses;
const gets = new Map(Object.entries(recorded.get).map(([path, body]) => [path, Buffer.from(body)]));
const posts = new Map(Object.entries(recorded.post).map(([request, body]) => [request, Buffer.from(body)]));
const notFound = Buffer.from("{}");

const server = createServer((req, res) => {
  const send = (body: Buffer | undefined) => {
    res.writeHead(body ? 200 : 404, { "Content-Type": "application/json; charset=utf-8", "Content-Length": (body ?? notFound).length });
    res.end(body ?? notFound);
  };
  if (req.method === "POST") {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => send(posts.get(Buffer.concat(chunks).toString())));
    return;
  }
  send(gets.get(req.url ?? ""));
});
server.keepAliveTimeout = 5000;
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`${typeof address === "object" && address ? address.port : 0}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
