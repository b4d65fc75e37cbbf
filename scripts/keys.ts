/**
 * API key management: `npm run keys -- create --plan <free|pro> [--expires <ISO date>] [--name <text>]`,
 * `list`, `revoke <keyId>`. Works on `<DATA_DIR>/keys.db` (same DATA_DIR as the server).
 * `create` prints the new key as its last line, and only then: it is not stored.
 */
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { DEMO_KEY_NAME, openKeyStore } from "../server/auth/key-store.js";
import { ConfigError, loadSettings, PLANS, type Plan } from "../settings/settings.js";

const USAGE = `Usage:
  npm run keys -- create --plan <free|pro> [--expires <ISO 8601 date>] [--name <text>]
  npm run keys -- list
  npm run keys -- revoke <keyId>

  create   makes a key and prints it as the last line, once: only its hash is stored
  list     every key: id, name, plan, created, expires, revoked
  revoke   revokes a key by its id (the 8 hex characters after tsk_); it stops working at once

Keys live in DATA_DIR/keys.db (the server's DATA_DIR). Exit codes: 0 ok, 1 no such key, 2 usage.`;

class UsageError extends Error {}

/** Exits with `code` after the message has gone to stderr. */
class CliExit extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

function fail(message: string, code = 2): never {
  throw new CliExit(code, message);
}

export interface KeysCliIo {
  /** Environment to read DATA_DIR from. Default process.env. */
  env?: NodeJS.ProcessEnv;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

/** Accepts 2026-01-31 or a full ISO 8601 timestamp with Z or an offset. */
function parseExpiry(value: string): string {
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;
  const ms = Date.parse(value);
  if (!iso.test(value) || Number.isNaN(ms)) {
    throw new UsageError(`Expected --expires to be an ISO 8601 date such as 2026-12-31 or 2026-12-31T23:59:59Z`);
  }
  return new Date(ms).toISOString();
}

function run(argv: string[], env: NodeJS.ProcessEnv | undefined, out: (text: string) => void): void {
  const [command, ...rest] = argv;
  if (command === "help" || argv.includes("--help") || argv.includes("-h")) {
    out(`${USAGE}\n`);
    return;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: true,
    options: { plan: { type: "string" }, expires: { type: "string" }, name: { type: "string" } },
  });
  // Only DATA_DIR: a bad server setting does not stop key management.
  const config = loadSettings("keys", env);
  switch (command) {
    case "create": {
      if (positionals.length > 0) throw new UsageError("create takes no positional arguments");
      if (values.plan === undefined || !(PLANS as readonly string[]).includes(values.plan)) {
        throw new UsageError(`Expected --plan to be one of: ${PLANS.join(", ")}`);
      }
      if (values.name?.trim().toLowerCase() === DEMO_KEY_NAME) {
        throw new UsageError(`The name "${DEMO_KEY_NAME}" is reserved for the key npm start issues with the demo dataset`);
      }
      const expiresAt = values.expires === undefined ? null : parseExpiry(values.expires);
      const store = openKeyStore({ dataDir: config.dataDir });
      try {
        const { key, record } = store.create({ plan: values.plan as Plan, name: values.name ?? "", expiresAt });
        out(
          `Created key ${record.keyId} (plan ${record.plan}${expiresAt ? `, expires ${expiresAt}` : ""}). ` +
            `It is shown once and not stored; keep it secret:\n${key}\n`,
        );
      } finally {
        store.close();
      }
      return;
    }
    case "list": {
      if (values.plan !== undefined || values.expires !== undefined || values.name !== undefined || positionals.length > 0) {
        throw new UsageError("list takes no arguments");
      }
      const store = openKeyStore({ dataDir: config.dataDir });
      try {
        const rows = store.list().map((r) => [r.keyId, r.name || "-", r.plan, r.createdAt, r.expiresAt ?? "-", r.revokedAt ?? "-"]);
        const header = ["keyId", "name", "plan", "created", "expires", "revoked"];
        const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
        for (const row of [header, ...rows]) {
          out(`${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd()}\n`);
        }
      } finally {
        store.close();
      }
      return;
    }
    case "revoke": {
      const keyId = positionals[0];
      if (keyId === undefined || positionals.length !== 1 || !/^[0-9a-f]{8}$/.test(keyId)) {
        throw new UsageError("Expected exactly one key id (8 hex characters) to revoke");
      }
      const store = openKeyStore({ dataDir: config.dataDir });
      let revoked: boolean;
      try {
        revoked = store.revoke(keyId);
      } finally {
        store.close();
      }
      if (!revoked) fail(`No active key with id ${keyId}`, 1);
      out(`Revoked key ${keyId}\n`);
      return;
    }
    default:
      throw new UsageError(command === undefined ? "Missing command" : "Unknown command");
  }
}

/** Runs one CLI invocation; returns the exit code (0 ok, 1 not found, 2 usage or config error). */
export function runKeysCli(argv: string[], io: KeysCliIo = {}): number {
  const out = io.stdout ?? ((text: string) => process.stdout.write(text));
  const err = io.stderr ?? ((text: string) => process.stderr.write(text));
  try {
    run(argv, io.env, out);
    return 0;
  } catch (error) {
    let exit: CliExit;
    if (error instanceof CliExit) exit = error;
    else if (error instanceof UsageError) exit = new CliExit(2, `${error.message}\n\n${USAGE}`);
    else if (error instanceof ConfigError) exit = new CliExit(2, error.message);
    else if (error instanceof TypeError && (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      exit = new CliExit(2, `${error.message}\n\n${USAGE}`);
    } else throw error;
    err(`${exit.message}\n`);
    return exit.code;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = runKeysCli(process.argv.slice(2));
}
