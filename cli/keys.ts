/**
 * API key management: `npm run keys -- create --plan <free|pro> [--expires <date or time>] [--name <text>]`,
 * `list`, `revoke <keyId>`. Works on `<DATA_DIR>/keys.db` (same DATA_DIR as the server),
 * or with DATABASE_URL on the `api_keys` table in PostgreSQL that every replica reads.
 * `create` prints the new key as its last line, and only then: it is not stored.
 */
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { DEMO_KEY_NAME, openKeyStore } from "../server/auth/key-store.js";
import type { KeyRecord } from "../server/auth/key-record.js";
import { allPgKeys, createPgKey, ensurePgKeys, pgRowToRecord, revokePgKey } from "../server/auth/pg-keys.js";
import { ConfigError, loadSettings, PLANS, type Plan } from "../settings/settings.js";

const USAGE = `Usage:
  npm run keys -- create --plan <free|pro> [--expires <date or time>] [--name <text>]
  npm run keys -- list
  npm run keys -- revoke <keyId>

  create   makes a key and prints it as the last line, once: only its hash is stored;
           --expires 2026-12-31 lasts to the end of that day in UTC (2026-12-31T23:59:59.999Z),
           a time needs Z or an offset (2026-12-31T18:00:00+01:00); either must be in the future
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

/**
 * Accepts 2026-01-31 or a full ISO 8601 timestamp with Z or an offset. A date
 * alone is the last millisecond of that day in UTC, so `--expires` with
 * today's date gives a key that works today. A moment not after `now` is
 * refused: such a key would get 403 from its first request.
 */
function parseExpiry(value: string, now: number): string {
  const iso = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.exec(value);
  const dateOnly = iso?.[4] === undefined;
  const ms = Date.parse(dateOnly ? `${value}T23:59:59.999Z` : value);
  if (!iso || Number.isNaN(ms)) {
    throw new UsageError(`Expected --expires to be an ISO 8601 date such as 2026-12-31 or 2026-12-31T23:59:59Z`);
  }
  // Date.parse rolls 2026-02-30 over into March: a typo would expire the key on another day than written.
  const [year, month, day] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) {
    throw new UsageError(`--expires ${value}: ${iso[1]}-${iso[2]} has no day ${iso[3]}`);
  }
  const expiresAt = new Date(ms).toISOString();
  if (ms <= now) {
    const means = dateOnly ? `a date alone means the end of that day in UTC, ${expiresAt}` : expiresAt;
    throw new UsageError(`--expires ${value} is in the past (${means}): the key would never work`);
  }
  return expiresAt;
}

type Command =
  | { command: "create"; plan: Plan; name: string; expiresAt: string | null }
  | { command: "list" }
  | { command: "revoke"; keyId: string };

/** The command line checked, before any store is opened. */
function parseCommand(argv: string[]): Command {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: true,
    options: { plan: { type: "string" }, expires: { type: "string" }, name: { type: "string" } },
  });
  switch (command) {
    case "create": {
      if (positionals.length > 0) throw new UsageError("create takes no positional arguments");
      if (values.plan === undefined || !(PLANS as readonly string[]).includes(values.plan)) {
        throw new UsageError(`Expected --plan to be one of: ${PLANS.join(", ")}`);
      }
      if (values.name?.trim().toLowerCase() === DEMO_KEY_NAME) {
        throw new UsageError(`The name "${DEMO_KEY_NAME}" is reserved for the key npm start issues with the demo dataset`);
      }
      const expiresAt = values.expires === undefined ? null : parseExpiry(values.expires, Date.now());
      return { command: "create", plan: values.plan as Plan, name: values.name ?? "", expiresAt };
    }
    case "list": {
      if (values.plan !== undefined || values.expires !== undefined || values.name !== undefined || positionals.length > 0) {
        throw new UsageError("list takes no arguments");
      }
      return { command: "list" };
    }
    case "revoke": {
      const keyId = positionals[0];
      if (keyId === undefined || positionals.length !== 1 || !/^[0-9a-f]{8}$/.test(keyId)) {
        throw new UsageError("Expected exactly one key id (8 hex characters) to revoke");
      }
      return { command: "revoke", keyId };
    }
    default:
      throw new UsageError(command === undefined ? "Missing command" : "Unknown command");
  }
}

/** The key store a command works on: keys.db, or PostgreSQL with DATABASE_URL. */
interface Keys {
  create(options: { plan: Plan; name: string; expiresAt: string | null }): { key: string; record: KeyRecord } | Promise<{ key: string; record: KeyRecord }>;
  list(): KeyRecord[] | Promise<KeyRecord[]>;
  revoke(keyId: string): boolean | Promise<boolean>;
}

function created(out: (text: string) => void, { key, record }: { key: string; record: KeyRecord }): void {
  out(
    `Created key ${record.keyId} (plan ${record.plan}${record.expiresAt ? `, expires ${record.expiresAt}` : ""}). ` +
      `It is shown once and not stored; keep it secret:\n${key}\n`,
  );
}

function listed(out: (text: string) => void, records: KeyRecord[]): void {
  const rows = records.map((r) => [r.keyId, r.name || "-", r.plan, r.createdAt, r.expiresAt ?? "-", r.revokedAt ?? "-"]);
  const header = ["keyId", "name", "plan", "created", "expires", "revoked"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  for (const row of [header, ...rows]) {
    out(`${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd()}\n`);
  }
}

function revoked(out: (text: string) => void, keyId: string, done: boolean): void {
  if (!done) fail(`No active key with id ${keyId}`, 1);
  out(`Revoked key ${keyId}\n`);
}

function run(argv: string[], env: NodeJS.ProcessEnv | undefined, out: (text: string) => void): void {
  const parsed = parseCommand(argv);
  // Only DATA_DIR: a bad server setting does not stop key management.
  const config = loadSettings("keys", env);
  const store = openKeyStore({ dataDir: config.dataDir });
  try {
    if (parsed.command === "create") created(out, store.create(parsed));
    else if (parsed.command === "list") listed(out, store.list());
    else revoked(out, parsed.keyId, store.revoke(parsed.keyId));
  } finally {
    store.close();
  }
}

/** The same commands on PostgreSQL (DATABASE_URL); each write notifies every replica. */
async function runOnPostgres(argv: string[], databaseUrl: string, out: (text: string) => void): Promise<void> {
  const parsed = parseCommand(argv);
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "transcript-keys" });
  await client.connect();
  try {
    await ensurePgKeys(client);
    if (parsed.command === "create") created(out, await createPgKey(client, parsed));
    else if (parsed.command === "list") listed(out, (await allPgKeys(client)).map(pgRowToRecord));
    else revoked(out, parsed.keyId, await revokePgKey(client, parsed.keyId));
  } finally {
    await client.end();
  }
}

/** `help`, `--help` or `-h` anywhere: usage is printed before any setting is read. */
function asksForHelp(argv: string[]): boolean {
  return argv[0] === "help" || argv.includes("--help") || argv.includes("-h");
}

/** Runs one CLI invocation on keys.db; returns the exit code (0 ok, 1 not found, 2 usage or config error). */
export function runKeysCli(argv: string[], io: KeysCliIo = {}): number {
  const out = io.stdout ?? ((text: string) => process.stdout.write(text));
  const err = io.stderr ?? ((text: string) => process.stderr.write(text));
  if (asksForHelp(argv)) {
    out(`${USAGE}\n`);
    return 0;
  }
  try {
    run(argv, io.env, out);
    return 0;
  } catch (error) {
    return exitCodeOf(error, err);
  }
}

/** Runs one CLI invocation where the settings say: PostgreSQL with DATABASE_URL, else keys.db. */
export async function runKeysCommand(argv: string[], io: KeysCliIo = {}): Promise<number> {
  const out = io.stdout ?? ((text: string) => process.stdout.write(text));
  const err = io.stderr ?? ((text: string) => process.stderr.write(text));
  if (asksForHelp(argv)) return runKeysCli(argv, io);
  let databaseUrl: string | undefined;
  try {
    databaseUrl = loadSettings("keys", io.env).databaseUrl;
  } catch (error) {
    return exitCodeOf(error, err);
  }
  if (databaseUrl === undefined) return runKeysCli(argv, io);
  try {
    await runOnPostgres(argv, databaseUrl, out);
    return 0;
  } catch (error) {
    return exitCodeOf(error, err);
  }
}

function exitCodeOf(error: unknown, err: (text: string) => void): number {
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

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runKeysCommand(process.argv.slice(2));
}
