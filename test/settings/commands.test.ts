/**
 * The commands as run from a shell, over one temp DATA_DIR holding a published
 * set: a bad server setting (PORT=not-a-port) stops `npm start` with its message
 * but not `npm run pipeline -- demo` nor `npm run keys`, which read only their own rows.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { runKeysCli } from "../../cli/keys.js";
import { startChild } from "../reliability/helpers/child.js";
import { fixtureRecords } from "../server/helpers/fixture-records.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";

let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "settings-commands-"));
  await buildArtifacts({ records: fixtureRecords(), outDir: dataDirLayout(dataDir).current, dataset: "fixture" });
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function exitOf(script: string, args: string[], env: Record<string, string>) {
  const child = startChild(script, args, { DATA_DIR: dataDir, ...env });
  const { code } = await child.exited;
  return { code, stderr: child.stderr() };
}

describe("PORT=not-a-port", () => {
  test("does not stop npm run pipeline -- demo", async () => {
    const { code, stderr } = await exitOf("pipeline/cli.ts", ["demo"], { PORT: "not-a-port" });
    expect(stderr).not.toContain("Invalid configuration");
    expect(stderr).toContain("already has a published artifact set; nothing to do");
    expect(code).toBe(0);
  });

  test("still stops npm start, naming PORT", async () => {
    const { code, stderr } = await exitOf("server/main.ts", [], { PORT: "not-a-port" });
    expect(stderr).toContain("Invalid configuration:\n  PORT: must be a whole number");
    expect(code).toBe(2);
  });

  test("does not stop npm run keys", () => {
    const env = { DATA_DIR: dataDir, PORT: "not-a-port" };
    let out = "";
    let err = "";
    const io = { env, stdout: (t: string) => (out += t), stderr: (t: string) => (err += t) };
    expect(runKeysCli(["create", "--plan", "free", "--name", "port-ignored"], io)).toBe(0);
    expect(runKeysCli(["list"], io)).toBe(0);
    expect(err).toBe("");
    expect(out).toMatch(/^\S+\s+port-ignored\s+free\s/m);
  });
});

test("a bad pipeline setting still stops npm run pipeline -- demo, naming it", async () => {
  const { code, stderr } = await exitOf("pipeline/cli.ts", ["demo"], { YOUTUBE_ORIGIN: "ftp://example.com" });
  expect(stderr).toContain("Invalid configuration:\n  YOUTUBE_ORIGIN: must be an http(s) scheme and host only");
  expect(code).toBe(1);
});
