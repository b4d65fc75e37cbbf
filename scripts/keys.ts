/**
 * API key management: `npm run keys -- create --plan <free|pro> [--expires <ISO date>] [--name <text>]`,
 * `list`, `revoke <keyId>`. Works on `<DATA_DIR>/keys.db` (same DATA_DIR as the server).
 * `create` prints the new key as its last line, and only then: it is not stored.
 */
import { parseArgs } from "node:util";
import { openKeyStore } from "../server/auth/key-store.js";
import { ConfigError, loadConfig, PLANS, type Plan } from "../server/config.js";

const USAGE = `Usage:
  npm run keys -- create --plan <free|pro> [--expires <ISO 8601 date>] [--name <text>]
  npm run keys -- list
  npm run keys -- revoke <keyId>`;

class UsageError extends Error {}

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
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

function run(argv: string[]): void {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: true,
    options: { plan: { type: "string" }, expires: { type: "string" }, name: { type: "string" } },
  });
  const config = loadConfig();
  switch (command) {
    case "create": {
      if (positionals.length > 0) throw new UsageError("create takes no positional arguments");
      if (values.plan === undefined || !(PLANS as readonly string[]).includes(values.plan)) {
        throw new UsageError(`Expected --plan to be one of: ${PLANS.join(", ")}`);
      }
      const expiresAt = values.expires === undefined ? null : parseExpiry(values.expires);
      const store = openKeyStore({ dataDir: config.dataDir });
      try {
        const { key, record } = store.create({ plan: values.plan as Plan, name: values.name ?? "", expiresAt });
        process.stdout.write(
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
          process.stdout.write(`${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd()}\n`);
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
      process.stdout.write(`Revoked key ${keyId}\n`);
      return;
    }
    default:
      throw new UsageError(command === undefined ? "Missing command" : "Unknown command");
  }
}

try {
  run(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) fail(`${error.message}\n\n${USAGE}`);
  if (error instanceof ConfigError) fail(error.message);
  if (error instanceof TypeError && (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) fail(`${error.message}\n\n${USAGE}`);
  throw error;
}
