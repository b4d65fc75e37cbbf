/**
 * `npm run mcp -- --stdio`: the service's MCP tools over stdin/stdout, for
 * clients that launch MCP servers as processes. It calls a running instance
 * (TRANSCRIPTS_URL) with a key (TRANSCRIPTS_API_KEY). stdout carries the
 * protocol only; messages go to stderr.
 */
import { parseArgs } from "node:util";
import { ConfigError, loadSettings } from "../settings/settings.js";
import { startStdioBridge } from "./mcp-stdio.js";

const USAGE = `Usage: npm run mcp -- --stdio

Serves the MCP tools of a running transcript service over stdin/stdout
(search_transcripts, get_transcript, get_transcripts, list_channels,
list_channel_videos, get_stats), calling its POST /mcp endpoint.

Settings (environment):
  TRANSCRIPTS_URL      base URL of the service (default http://127.0.0.1:3000)
  TRANSCRIPTS_API_KEY  the API key to send (required; npm run keys -- create)

Options:
  --stdio   serve over stdin/stdout (the one transport of this command)
  --help    this text`;

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, strict: true, options: { stdio: { type: "boolean" }, help: { type: "boolean", short: "h" } } }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.stdio !== true) {
    process.stderr.write(`Expected --stdio.\n\n${USAGE}\n`);
    return 2;
  }
  let settings;
  try {
    settings = loadSettings("mcp", process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  if (settings.transcriptsApiKey === "") {
    process.stderr.write("TRANSCRIPTS_API_KEY is not set: give the key this command sends (npm run keys -- create prints one).\n");
    return 2;
  }
  await startStdioBridge({ baseUrl: settings.transcriptsUrl, apiKey: settings.transcriptsApiKey });
  process.stderr.write(`transcript-service MCP over stdio, calling ${settings.transcriptsUrl}/mcp\n`);
  // The transport keeps the process alive until stdin ends.
  process.stdin.on("end", () => process.exit(0));
  return -1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
