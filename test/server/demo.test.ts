/**
 * DEMO: which DATA_DIR gets the demo dataset. Only one that was never used (no
 * published set, no API keys but the demo's own) under DEMO=auto; DEMO=off
 * or a DATA_DIR with keys and no set is refused with how to build a set.
 * (test/server/main.test.ts runs the same decisions through `npm start`.)
 * The demo itself is built by the pipeline in a child process.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { newBuildDir, publishBuild } from "../../pipeline/publish/publish.js";
import { DEMO_KEY_NAME, openKeyStore } from "../../server/auth/key-store.js";
import { readManifest } from "../../pipeline/artifact/manifest/manifest.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";
import { ensureServableSet, NoArtifactSetError, servableSet } from "../../server/start/demo.js";
import { createLogger } from "../../server/log.js";
import { fixtureRecords } from "./helpers/fixture-records.js";

const dirs: string[] = [];
function emptyDataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "demo-decision-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function withKeys(dataDir: string, keys: { name: string; revoked: boolean }[]): void {
  const store = openKeyStore({ dataDir });
  for (const { name, revoked } of keys) {
    const { record } = store.create({ plan: "pro", name });
    if (revoked) store.revoke(record.keyId);
  }
  store.close();
}

describe("servableSet", () => {
  test("DEMO=auto on an empty DATA_DIR: the demo, and nothing is created by asking", () => {
    const dataDir = emptyDataDir();
    expect(servableSet({ dataDir, demo: "auto" })).toBe("demo");
    expect(readdirSync(dataDir)).toEqual([]);
  });

  test("DEMO=auto with only the demo's own keys (active or revoked): the demo again", () => {
    const dataDir = emptyDataDir();
    withKeys(dataDir, [
      { name: DEMO_KEY_NAME, revoked: true },
      { name: DEMO_KEY_NAME, revoked: false },
    ]);
    expect(servableSet({ dataDir, demo: "auto" })).toBe("demo");
  });

  test("DEMO=auto with any other key, even a revoked one, and no set: refused, saying how to build a set", () => {
    const dataDir = emptyDataDir();
    withKeys(dataDir, [
      { name: DEMO_KEY_NAME, revoked: true },
      { name: "acme", revoked: true },
    ]);
    expect(() => servableSet({ dataDir, demo: "auto" })).toThrow(NoArtifactSetError);
    expect(() => servableSet({ dataDir, demo: "auto" })).toThrow(/holds 1 API key: [\s\S]*npm run pipeline -- run --channels[\s\S]*npm run pipeline -- build --input/);
  });

  test("DEMO=off with no set: refused, saying how to build one; with a published set: that set", async () => {
    const dataDir = emptyDataDir();
    expect(() => servableSet({ dataDir, demo: "off" })).toThrow(/No artifact set is published in .* and DEMO=off\.\n[\s\S]*npm run pipeline -- build --input/);
    expect(existsSync(path.join(dataDir, "keys.db"))).toBe(false);

    const build = newBuildDir(dataDir);
    await buildArtifacts({ records: fixtureRecords(), outDir: build, dataset: "test" });
    await publishBuild(dataDir, build);
    withKeys(dataDir, [{ name: "acme", revoked: false }]);
    expect(servableSet({ dataDir, demo: "off" })).toBe("published");
    expect(servableSet({ dataDir, demo: "auto" })).toBe("published");
  });
});

describe("ensureServableSet", () => {
  function collectingLogger() {
    const lines: { msg: string; source?: string }[] = [];
    return { lines, log: createLogger({ level: "info", write: (line) => void lines.push(JSON.parse(line)) }) };
  }

  test("an empty DATA_DIR under DEMO=auto: `npm run pipeline -- demo` builds and publishes the demo, its output in the server's log", async () => {
    const dataDir = emptyDataDir();
    const { lines, log } = collectingLogger();
    await ensureServableSet({ dataDir, demo: "auto" }, log);
    const manifest = readManifest(dataDirLayout(dataDir).current);
    expect(manifest.dataset).toBe("demo");
    expect(manifest.counts.videos).toBeGreaterThan(1000);
    const fromChild = lines.filter((line) => line.source === "pipeline demo").map((line) => line.msg);
    expect(fromChild[0]).toBe("no artifact set found: building the generated demo dataset (once)");
    expect(fromChild.at(-1)).toMatch(/^demo dataset ready: \d+ videos in /);
    // A second start finds the set and builds nothing.
    const again = collectingLogger();
    await ensureServableSet({ dataDir, demo: "auto" }, again.log);
    expect(again.lines).toEqual([]);
  }, 180_000);

  test("a demo build that fails rejects with the pipeline's own words", async () => {
    const dataDir = path.join(emptyDataDir(), "a-file");
    writeFileSync(dataDir, "not a directory");
    const { log } = collectingLogger();
    await expect(ensureServableSet({ dataDir, demo: "auto" }, log)).rejects.toThrow(
      /^Building the demo dataset \(npm run pipeline -- demo\) exited with code 1:\n[\s\S]*(ENOTDIR|not a directory)/,
    );
  }, 60_000);
});
