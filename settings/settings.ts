/**
 * Every setting of the server, the pipeline and the key CLI, from the rows of
 * rows.ts: the typed settings of each command, its validation (only the rows
 * it reads) and the list the settings table of docs/settings.md is made from.
 *
 * This folder sits beside `server/` and `pipeline/` and imports neither, so
 * both sides read their settings from one table without importing each other.
 */
import { z } from "zod";
import { ConfigError, type Command, type Setting } from "./define.js";
import { ROWS } from "./rows.js";

export { COMMANDS, ConfigError, type Command } from "./define.js";
export { DEMO_MODES, LOG_LEVELS, PLANS, type DemoMode, type LogLevel, type Plan } from "./rows.js";

type Rows = typeof ROWS;
type Key = keyof Rows;

/** Every setting's parsed value, whichever command reads it. */
type AllSettings = { [K in Key]: z.output<Rows[K]["kind"]> };

/** The settings command `C` reads, as it gets them from `loadSettings`. */
export type Settings<C extends Command> = { [K in Key as C extends Rows[K]["readBy"][number] ? K : never]: AllSettings[K] };

/** A rule over several settings, checked once each of them parsed; applied to the commands that read all of them. */
interface CrossCheck {
  reads: readonly Key[];
  /** The variable the message names. */
  blames: Key;
  problem(values: Partial<AllSettings>): string | undefined;
}

function crossCheck<K extends Key>(reads: readonly K[], blames: K, problem: (values: Pick<AllSettings, K>) => string | undefined): CrossCheck {
  return { reads, blames, problem: problem as CrossCheck["problem"] };
}

const CROSS_CHECKS: readonly CrossCheck[] = [
  crossCheck(["headersTimeoutMs", "requestTimeoutMs"], "headersTimeoutMs", (v) =>
    v.headersTimeoutMs > v.requestTimeoutMs ? "must not exceed REQUEST_TIMEOUT_MS" : undefined,
  ),
];

export interface SettingRow extends Setting {
  /** Field name in the typed settings. */
  key: Key;
}

/** The rows as a list, in the documented table's order. */
export const SETTINGS: readonly SettingRow[] = Object.entries(ROWS).map(([key, row]) => ({ ...(row as Setting), key: key as Key }));

/**
 * Reads the settings `command` uses from `env` (unset or empty variables take
 * the default) and no other: a bad value of a setting another command reads
 * does not stop this one. Throws `ConfigError` naming every bad variable; the
 * message never repeats the bad value, which might be a secret pasted into the
 * wrong variable.
 */
export function loadSettings<C extends Command>(command: C, env: NodeJS.ProcessEnv = process.env): Settings<C> {
  const rows = SETTINGS.filter((row) => row.readBy.includes(command));
  const values: Partial<Record<Key, unknown>> = {};
  const problems: string[] = [];
  for (const row of rows) {
    const value = env[row.name];
    const parsed = row.kind.safeParse(value === undefined || value.trim() === "" ? row.default : value);
    if (parsed.success) values[row.key] = parsed.data;
    else problems.push(...parsed.error.issues.map((issue) => `  ${row.name}: ${issue.message}`));
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join("\n")}`);
  const read = new Set(rows.map((row) => row.key));
  for (const check of CROSS_CHECKS) {
    if (!check.reads.every((key) => read.has(key))) continue;
    const problem = check.problem(values as Partial<AllSettings>);
    if (problem !== undefined) throw new ConfigError(`Invalid configuration:\n  ${ROWS[check.blames].name}: ${problem}`);
  }
  return values as Settings<C>;
}
