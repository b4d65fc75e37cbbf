/** The settings rows: every default parses, each command validates only the rows it reads, and the documented table (docs/settings.md) is the rows' table. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { COMMANDS, ConfigError, SETTINGS, loadSettings } from "../../settings/settings.js";
import { exitPolicyFromSettings } from "../../pipeline/youtube/index.js";
import { documentedSettingsTable, SETTINGS_TABLE_FILE, settingsTable } from "../../settings/table.js";

describe("the rows", () => {
  test.each(SETTINGS.map((row) => [row.name, row] as const))("%s: its default parses", (_, row) => {
    const parsed = row.kind.safeParse(row.default);
    expect(parsed.error?.issues ?? []).toEqual([]);
  });

  test.each(COMMANDS)("the defaults of every row %s reads load together, cross-checks included", (command) => {
    expect(() => loadSettings(command, {})).not.toThrow();
  });

  test("each names a variable once, is read by some command, and its field is the variable's name in camel case", () => {
    expect(new Set(SETTINGS.map((s) => s.name)).size).toBe(SETTINGS.length);
    for (const row of SETTINGS) {
      expect(row.readBy.length, row.name).toBeGreaterThan(0);
      expect(row.key).toBe(row.name.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()));
    }
  });
});

describe("each command reads its own rows", () => {
  test("the pipeline reads DATA_DIR and the upstream settings, not PORT: PORT=not-a-port does not stop it", () => {
    const settings = loadSettings("pipeline", { PORT: "not-a-port", DATA_DIR: "/tmp/x", YOUTUBE_ORIGIN: "http://127.0.0.1:4001/" });
    expect(settings).toEqual({
      dataDir: "/tmp/x",
      youtubeOrigin: "http://127.0.0.1:4001",
      youtubeProxyUrls: [],
      youtubeMaxBlockedRetries: 2,
      fetchLeaseSeconds: 600,
      fetchWorkerConcurrency: 8,
      fetchRetryLimit: 5,
      fetchRetryDelaySeconds: 30,
      youtubeExitRate: "auto",
      youtubeExitInFlight: "auto",
      youtubeExitCoolDownSeconds: 60,
      youtubeExitCoolDownMaxSeconds: 3600,
      youtubeExitDeadAfter: 3,
      // The fleet's view of the exits (REDIS_URL unset here).
      redisKeyPrefix: "transcripts:",
      redisDeadlineMs: 250,
      // Search by meaning: the build's embedder (none unless configured).
      embedder: "auto",
      embeddingsModel: "",
      embeddingsApiKey: "",
      embeddingsDimensions: 0,
      embeddingsBatch: 32,
      embeddingsTimeoutMs: 30_000,
      embeddingsRetries: 2,
    });
    expect(() => loadSettings("server", { PORT: "not-a-port" })).toThrow("PORT: must be a whole number");
  });

  test("the exit settings become one exit policy: auto paces against youtube.com only", () => {
    const against = (origin: string, env: Record<string, string> = {}) => exitPolicyFromSettings(loadSettings("pipeline", { YOUTUBE_ORIGIN: origin, ...env }), origin);
    expect(against("https://www.youtube.com")).toMatchObject({ requestsPerMinute: 12, maxInFlight: 2, coolDownMs: 60_000, coolDownMaxMs: 3_600_000, deadAfterFailures: 3 });
    expect(against("http://127.0.0.1:4001")).toMatchObject({ requestsPerMinute: 0, maxInFlight: 64 });
    expect(against("http://127.0.0.1:4001", { YOUTUBE_EXIT_RATE: "240", YOUTUBE_EXIT_IN_FLIGHT: "1", YOUTUBE_EXIT_COOL_DOWN_SECONDS: "2", YOUTUBE_EXIT_DEAD_AFTER: "2" })).toMatchObject({
      requestsPerMinute: 240,
      maxInFlight: 1,
      coolDownMs: 2_000,
      deadAfterFailures: 2,
    });
    expect(() => loadSettings("pipeline", { YOUTUBE_EXIT_IN_FLIGHT: "0" })).toThrow("YOUTUBE_EXIT_IN_FLIGHT: must be auto or a whole number from 1 to 256");
  });

  test("the pipeline still refuses a bad value of its own rows, naming the variable and not the value", () => {
    const env = { YOUTUBE_PROXY_URLS: "socks5://secret-proxy:9", PORT: "not-a-port" };
    expect(() => loadSettings("pipeline", env)).toThrow(ConfigError);
    expect(() => loadSettings("pipeline", env)).toThrow("Invalid configuration:\n  YOUTUBE_PROXY_URLS: must list http(s) URLs separated by commas");
    expect(() => loadSettings("pipeline", env)).not.toThrow(/PORT|secret-proxy/);
  });

  test("the key CLI reads DATA_DIR only", () => {
    expect(loadSettings("keys", { DATA_DIR: "/tmp/k", PORT: "x", YOUTUBE_ORIGIN: "ftp://x", LIVE_FETCH: "maybe" })).toEqual({ dataDir: "/tmp/k" });
  });

  test("a cross-check applies to a command that reads both of its settings", () => {
    const env = { HEADERS_TIMEOUT_MS: "60000", REQUEST_TIMEOUT_MS: "30000" };
    expect(() => loadSettings("server", env)).toThrow("Invalid configuration:\n  HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS");
    expect(() => loadSettings("pipeline", env)).not.toThrow();
  });
});

describe("the documented settings table (docs/settings.md)", () => {
  test("is the table made from the rows (npx tsx scripts/settings-table.ts --write), with a read-by column", () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, "../..", SETTINGS_TABLE_FILE), "utf8");
    const table = settingsTable();
    expect(table).toContain("| `DATA_DIR` | `./data` | server, pipeline, keys |");
    expect(documentedSettingsTable(doc)).toBe(table);
  });
});
