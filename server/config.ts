/**
 * The server's settings: the rows of settings/rows.ts that `npm start` reads,
 * typed and validated by settings/settings.ts. Kept as the server's one door
 * to its configuration.
 */
import { loadSettings, type Settings } from "../settings/settings.js";

export { ConfigError, DEMO_MODES, LOG_LEVELS, PLANS, SETTINGS, type DemoMode, type LogLevel, type Plan } from "../settings/settings.js";

export type Config = Settings<"server">;

/** Reads and validates the server's settings from `env`; throws `ConfigError` naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadSettings("server", env);
}
