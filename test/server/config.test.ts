/** Settings: defaults, validation messages that name the variable, and one table that documents them all. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { ConfigError, SETTINGS, loadConfig } from "../../server/config.js";
import { SETTINGS_TABLE_FILE } from "../../settings/table.js";

describe("loadConfig", () => {
  test("applies the documented defaults when nothing is set", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: "127.0.0.1",
      dataDir: path.resolve("./data"),
      rateLimitPerMinute: 100,
      bulkPlans: ["pro"],
      maxBodyBytes: 65536,
      logLevel: "info",
      accessLog: true,
      shutdownGraceMs: 10000,
      requestDeadlineMs: 30000,
      demo: "auto",
    });
  });

  test("every default in the settings table is itself a valid value", () => {
    const env = Object.fromEntries(SETTINGS.map((s) => [s.name, s.default]));
    expect(() => loadConfig(env)).not.toThrow();
  });

  test("treats empty variables as unset and parses lists and switches", () => {
    const config = loadConfig({ PORT: "", BULK_PLANS: " free , pro,free ", ACCESS_LOG: "OFF", LOG_LEVEL: "Warn" });
    expect(config.port).toBe(3000);
    expect(config.bulkPlans).toEqual(["free", "pro"]);
    expect(config.accessLog).toBe(false);
    expect(config.logLevel).toBe("warn");
    expect(loadConfig({ DEMO: " OFF " }).demo).toBe("off");
  });

  test.each([
    [{ PORT: "eighty" }, "PORT: must be a whole number"],
    [{ PORT: "70000" }, "PORT: must be at most 65535"],
    [{ RATE_LIMIT_PER_MINUTE: "0" }, "RATE_LIMIT_PER_MINUTE: must be at least 1"],
    [{ RATE_LIMIT_PER_MINUTE: "-5" }, "RATE_LIMIT_PER_MINUTE: must be a whole number"],
    [{ BULK_PLANS: "pro,gold" }, "BULK_PLANS: must list plans out of: free, pro"],
    [{ MAX_BODY_BYTES: "10" }, "MAX_BODY_BYTES: must be at least 1024"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL: must be one of: debug, info, warn, error, silent"],
    [{ ACCESS_LOG: "maybe" }, "ACCESS_LOG: must be on or off"],
    [{ DEMO: "on" }, "DEMO: must be one of: auto, off"],
    [{ HEADERS_TIMEOUT_MS: "60000", REQUEST_TIMEOUT_MS: "30000" }, "HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS"],
    [{ REQUEST_DEADLINE_MS: "99" }, "REQUEST_DEADLINE_MS: must be at least 100"],
    [{ REQUEST_DEADLINE_MS: "soon" }, "REQUEST_DEADLINE_MS: must be a whole number"],
  ])("refuses %j with a message naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  test("lists every bad variable at once and never repeats the bad value", () => {
    try {
      loadConfig({ PORT: "secret-token-123", MAX_CONNECTIONS: "lots" });
      expect.unreachable();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain("PORT");
      expect(message).toContain("MAX_CONNECTIONS");
      expect(message).not.toContain("secret-token-123");
      expect(message).not.toContain("lots");
    }
  });
});

describe("the settings table", () => {
  test("has a default and help for every setting, and no duplicates", () => {
    expect(new Set(SETTINGS.map((s) => s.name)).size).toBe(SETTINGS.length);
    for (const setting of SETTINGS) {
      expect(setting.name).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(setting.help.length).toBeGreaterThan(10);
    }
  });

  const documented = path.resolve(import.meta.dirname, "../..", SETTINGS_TABLE_FILE);
  test.runIf(existsSync(documented))(`is reproduced in ${SETTINGS_TABLE_FILE}: every setting appears there`, () => {
    const text = readFileSync(documented, "utf8");
    const missing = SETTINGS.filter((s) => !text.includes(`\`${s.name}\``)).map((s) => s.name);
    expect(missing).toEqual([]);
  });
});
