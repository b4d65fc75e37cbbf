/** `cli/keys.ts` end to end in a temp DATA_DIR: create prints the key last, the key works, revoke stops it. */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createApp } from "../../server/app/app.js";
import { openKeyStore, type KeyStore } from "../../server/auth/key-store.js";
import { loadConfig } from "../../server/config.js";
import { openCatalog, type ArtifactCatalog } from "../../server/artifact-set/artifact-catalog.js";
import { createLogger } from "../../server/log.js";
import { createMemoryRateLimiter } from "../../server/rate-limit/memory-rate-limiter.js";
import { runKeysCli } from "../../cli/keys.js";
import { call, expectProblem } from "./helpers/http.js";
import { buildFixtureArtifacts, type Artifacts } from "./helpers/test-server.js";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

const run = promisify(execFile);
let dataDir: string;
let artifacts: Artifacts;
let catalog: ArtifactCatalog;
let keyStore: KeyStore;
let server: Server;
let baseUrl: string;

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * Runs the CLI as `npx tsx cli/keys.ts …` (what `npm run keys` does); `direct` skips npx's own
 * start-up (seconds on a busy machine) by calling the project's tsx binary, for the many argument checks.
 */
async function keys(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  return runKeys(["npx", "tsx"], args);
}
async function keysDirect(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  return runKeys([path.join(ROOT, "node_modules/.bin/tsx")], args);
}

async function runKeys(command: string[], args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const [bin, ...pre] = command as [string, ...string[]];
  try {
    const { stdout, stderr } = await run(bin, [...pre, "cli/keys.ts", ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir },
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

/** The same CLI in-process, for the many argument checks that need no process of their own. */
function keysInProcess(...args: string[]): { stdout: string; stderr: string; code: number } {
  let stdout = "";
  let stderr = "";
  const code = runKeysCli(args, { env: { DATA_DIR: dataDir }, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { stdout, stderr, code };
}

const lastLine = (text: string) => text.trimEnd().split("\n").at(-1) as string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "keys-cli-"));
  artifacts = await buildFixtureArtifacts();
  catalog = openCatalog({ dir: artifacts.dir });
  // The server reads the same keys.db the CLI writes, as in production.
  keyStore = openKeyStore({ dataDir });
  const config = loadConfig({ DATA_DIR: dataDir, ACCESS_LOG: "off" });
  server = createApp({ config, catalog, keyStore, rateLimiter: createMemoryRateLimiter({ limit: 100 }), log: createLogger({ level: "silent" }) });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  catalog.close();
  keyStore.close();
  artifacts.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm run keys", () => {
  test("create prints the key as its last line, the key works, list shows it without secrets, revoke stops it", async () => {
    const created = await keys("create", "--plan", "free", "--name", "ci bot");
    expect(created.code).toBe(0);
    const key = lastLine(created.stdout);
    expect(key).toMatch(/^tsk_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
    const keyId = key.split("_")[1] as string;
    expect((await call(baseUrl, "/v1/stats", { key })).status).toBe(200);

    const listed = await keysDirect("list");
    expect(listed.code).toBe(0);
    const row = listed.stdout.split("\n").find((line) => line.startsWith(keyId));
    expect(row).toMatch(/ci bot\s+free\s+\d{4}-\d{2}-\d{2}T\S+Z\s+-\s+-$/);
    // The secret is base64url and may itself contain "_": everything after the key id.
    expect(listed.stdout).not.toContain(key.slice(`tsk_${keyId}_`.length));
    expect(listed.stdout.split("\n")[0]).toMatch(/^keyId\s+name\s+plan\s+created\s+expires\s+revoked$/);

    const revoked = await keysDirect("revoke", keyId);
    expect(revoked.code).toBe(0);
    expectProblem(await call(baseUrl, "/v1/stats", { key }), 401, "invalid_api_key");
    expect(keysInProcess("list").stdout.split("\n").find((line) => line.startsWith(keyId))).toMatch(/\d{4}-\d{2}-\d{2}T\S+Z$/);
  });

  test("create --expires with a time sets an expiry: the key works until then and gets 403 after", async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const created = keysInProcess("create", "--plan", "pro", "--expires", expiresAt);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(`expires ${expiresAt}`);
    const key = lastLine(created.stdout);
    expect((await call(baseUrl, "/v1/stats", { key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 50));
    expectProblem(await call(baseUrl, "/v1/stats", { key }), 403, "subscription_expired");
  });

  test("create --expires with a date alone lasts to the end of that day in UTC, so today's date gives a key that works today", async () => {
    const far = await keysDirect("create", "--plan", "free", "--expires", "2099-12-31");
    expect(far.code, far.stderr).toBe(0);
    expect(far.stdout).toContain("expires 2099-12-31T23:59:59.999Z");
    const today = new Date().toISOString().slice(0, 10);
    const created = await keysDirect("create", "--plan", "free", "--expires", today);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(`expires ${today}T23:59:59.999Z`);
    expect((await call(baseUrl, "/v1/stats", { key: lastLine(created.stdout) })).status).toBe(200);
  });

  test("create --expires in the past is refused with exit 2, saying so, and creates nothing", async () => {
    const before = keysInProcess("list").stdout;
    const day = await keysDirect("create", "--plan", "pro", "--expires", "2020-01-01");
    expect(day.code).toBe(2);
    expect(day.stderr.split("\n")[0]).toBe("--expires 2020-01-01 is in the past (a date alone means the end of that day in UTC, 2020-01-01T23:59:59.999Z): the key would never work");
    expect(day.stdout).toBe("");
    const time = await keysDirect("create", "--plan", "pro", "--expires", "2020-01-01T12:00:00+02:00");
    expect(time.code).toBe(2);
    expect(time.stderr.split("\n")[0]).toBe("--expires 2020-01-01T12:00:00+02:00 is in the past (2020-01-01T10:00:00.000Z): the key would never work");
    expect(keysInProcess("list").stdout).toBe(before);
  });

  test("create --expires refuses a day its month does not have, instead of rolling over into the next month", async () => {
    for (const value of ["2099-02-30", "2099-04-31T12:00:00Z"]) {
      const res = await keysDirect("create", "--plan", "pro", "--expires", value);
      expect(res.code, value).toBe(2);
      expect(res.stderr.split("\n")[0]).toBe(`--expires ${value}: ${value.slice(0, 7)} has no day ${value.slice(8, 10)}`);
    }
  });

  test("refuses bad arguments with a usage message and a non-zero exit", async () => {
    const cases = [["create"], ["create", "--plan", "gold"], ["create", "--plan", "pro", "--expires", "next week"], ["create", "--plan", "pro", "--bogus"], ["revoke"], ["revoke", "zz"], ["frobnicate"], []];
    const results = cases.map((args) => keysInProcess(...args));
    results.forEach((res, i) => {
      expect(res.code, cases[i]?.join(" ")).toBe(2);
      expect(res.stderr).toContain("Usage:");
      expect(res.stdout).toBe("");
    });
    expect(results[1]?.stderr).toContain("Expected --plan to be one of: free, pro");
  });

  test("refuses the name of the demo key, which npm start revokes whenever another set is served", () => {
    for (const name of ["demo", " Demo "]) {
      const res = keysInProcess("create", "--plan", "pro", "--name", name);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain('The name "demo" is reserved');
      expect(res.stdout).toBe("");
    }
    expect(keysInProcess("list").stdout).not.toMatch(/\sdemo\s/i);
  });

  test("revoking an unknown key id fails with exit code 1", async () => {
    const res = keysInProcess("revoke", "00000000");
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("No active key with id 00000000");
  });
});
