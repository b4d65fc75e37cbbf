/**
 * `npm start`'s command line: it takes no argument but `--help` (`-h`,
 * `help`), which prints the usage and every setting the server reads; any
 * other argument is a usage error. Read before the settings, so help works
 * whatever the environment holds, and neither touches DATA_DIR.
 */
import { SETTINGS } from "../../settings/settings.js";
import { settingsHelp } from "../../settings/table.js";

export const START_USAGE = `usage: npm start [-- --help]

Serves the artifact set published in DATA_DIR: the JSON API under /v1, MCP at /mcp and the
API reference at /docs, on HOST:PORT (default 127.0.0.1:3000). On a DATA_DIR never used it
first builds the demo dataset and prints a demo API key (DEMO). Ctrl-C or SIGTERM stops it
once the requests in flight are answered (SHUTDOWN_GRACE_MS). API keys: npm run keys -- --help.
Settings are environment variables, e.g. PORT=3001 npm start.

exit codes: 0 stopped, 1 failed (no set to serve, the port in use, …), 2 usage or a bad setting`;

/** The whole `--help`: the usage, then the settings with their defaults and meanings. */
export function startHelp(): string {
  return `${START_USAGE}\n\nsettings (environment variables; also in docs/settings.md):\n${settingsHelp("server")}`;
}

/** What the arguments ask for: the help, serving (none), or a usage error, as one line. */
export function parseStartArgs(argv: readonly string[]): { help: boolean } | { problem: string } {
  let help = false;
  for (const arg of argv) {
    if (arg === "--help" || arg === "-h" || arg === "help") help = true;
    else return { problem: `npm start: ${arg.startsWith("-") ? "unknown option" : "unexpected argument"} ${arg}${hint(arg)}` };
  }
  return { help };
}

/** For a flag named like a setting (`--port=3001`, `--data-dir`): how that setting is given. */
function hint(arg: string): string {
  const [flag = "", value] = arg.replace(/^-+/, "").split(/=(.*)/s);
  const name = flag.toUpperCase().replace(/-/g, "_");
  const setting = SETTINGS.find((s) => s.name === name && s.readBy.includes("server"));
  if (setting === undefined) return "; it takes only --help, and its settings are environment variables";
  return `; settings are environment variables: ${setting.name}=${value || "…"} npm start`;
}
