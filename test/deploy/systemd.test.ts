/**
 * The systemd units in deploy/systemd: `systemd-analyze verify` finds nothing
 * to say about them (any warning fails the test: verify exits 0 on a
 * directive it cannot parse), and they agree with the code: the commands
 * package.json runs, a stop timeout longer than the server's drain, writes
 * allowed to DATA_DIR only (none at all for the fetch worker).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SETTINGS } from "../../settings/settings.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const UNITS = path.join(ROOT, "deploy/systemd");
const files = readdirSync(UNITS).filter((name) => /\.(service|timer)$/.test(name)).sort();
const analyze = spawnSync("systemd-analyze", ["--version"], { encoding: "utf8" });
const haveAnalyze = analyze.status === 0;
if (!haveAnalyze) console.log("skipped: systemd-analyze verify of deploy/systemd (not installed; apt-get install -y systemd, as .ci/run does)");

const scratch = mkdtempSync(path.join(tmpdir(), "units-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function verify(paths: string[]): { status: number | null; output: string } {
  const result = spawnSync("systemd-analyze", ["verify", "--man=no", ...paths], { encoding: "utf8", env: { ...process.env, SYSTEMD_LOG_COLOR: "0" } });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

/** `Key=value` lines of a unit (comments and sections dropped); repeated keys keep every value. */
function directives(file: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of readFileSync(path.join(UNITS, file), "utf8").split("\n")) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (match) out.set(match[1]!, [...(out.get(match[1]!) ?? []), match[2]!]);
  }
  return out;
}
const one = (units: Map<string, string[]>, key: string) => units.get(key)?.at(-1);

describe("deploy/systemd", () => {
  it("ships the server's service, the pipeline's service and its timer, and the fetch worker's service", () => {
    expect(files).toEqual(["transcript-fetch-worker.service", "transcript-pipeline.service", "transcript-pipeline.timer", "transcript-server.service"]);
  });

  it.skipIf(!haveAnalyze)("passes systemd-analyze verify without a single warning", () => {
    // verify checks that ExecStart's program exists: where node is not /usr/bin/node, copies naming this node are checked.
    const paths = files.map((name) => {
      if (existsSync("/usr/bin/node")) return path.join(UNITS, name);
      const copy = path.join(scratch, name);
      writeFileSync(copy, readFileSync(path.join(UNITS, name), "utf8").replaceAll("/usr/bin/node ", `${process.execPath} `));
      return copy;
    });
    const result = verify(paths);
    expect(result.output).toBe("");
    expect(result.status).toBe(0);
  });

  it.skipIf(!haveAnalyze)("would fail on a directive verify cannot parse (the check can fail)", () => {
    const damaged = path.join(scratch, "transcript-server.service");
    writeFileSync(damaged, readFileSync(path.join(UNITS, "transcript-server.service"), "utf8").replace("ProtectSystem=strict", "ProtectSystem=strictly"));
    expect(verify([damaged]).output).toMatch(/Failed to parse protect system value/);
    writeFileSync(damaged, readFileSync(path.join(UNITS, "transcript-server.service"), "utf8").replace("ExecStart=/usr/bin/node ", "ExecStart=/usr/bin/no-such-node "));
    const missing = verify([damaged]);
    expect(missing.status).not.toBe(0);
    expect(missing.output).toMatch(/\/usr\/bin\/no-such-node is not executable/);
  });

  it("runs what package.json runs, and the timer starts the pipeline's service", () => {
    const scripts = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    const server = directives("transcript-server.service");
    const pipeline = directives("transcript-pipeline.service");
    // `exec` only makes npm's shell hand over to node (so npm's signals reach it); systemd runs node directly.
    expect(one(server, "ExecStart")).toBe(`/usr/bin/${scripts.start!.replace(/^exec /, "")}`);
    expect(one(pipeline, "ExecStart")).toMatch(new RegExp(`^/usr/bin/${scripts.pipeline!.replace(/[.]/g, "\\.")} run --channels /`));
    expect(one(directives("transcript-pipeline.timer"), "Unit")).toBe("transcript-pipeline.service");
    expect(one(pipeline, "SuccessExitStatus")).toBe("3 4");
    const worker = directives("transcript-fetch-worker.service");
    expect(one(worker, "ExecStart")).toBe(`/usr/bin/${scripts.pipeline!} worker`);
    expect(one(worker, "Restart")).toBe("on-failure");
    expect(one(worker, "RestartPreventExitStatus")).toBe("2");
  });

  it("gives the server longer to stop than its drain, reloads with SIGHUP, and hardens both services", () => {
    const server = directives("transcript-server.service");
    const graceMs = Number(SETTINGS.find((s) => s.name === "SHUTDOWN_GRACE_MS")!.default);
    expect(Number(one(server, "TimeoutStopSec")) * 1000).toBeGreaterThanOrEqual(graceMs + 5000);
    expect(one(server, "ExecReload")).toBe("/bin/kill -HUP $MAINPID");
    for (const file of ["transcript-server.service", "transcript-pipeline.service"]) {
      const unit = directives(file);
      const dataDir = unit.get("Environment")?.find((e) => e.startsWith("DATA_DIR="))?.slice("DATA_DIR=".length);
      expect(dataDir, file).toBe("/srv/transcripts/data");
      expect(unit.get("ReadWritePaths"), file).toEqual([dataDir]);
      expect(one(unit, "EnvironmentFile"), file).toMatch(/^-\/etc\/transcripts\/\w+\.env$/);
      for (const [key, value] of Object.entries({ NoNewPrivileges: "yes", ProtectSystem: "strict", ProtectHome: "yes", PrivateTmp: "yes", CapabilityBoundingSet: "" })) {
        expect(one(unit, key), `${file} ${key}`).toBe(value);
      }
      expect(one(unit, "User"), file).toBe("transcripts");
    }
    // The fetch worker writes nothing on its host: no writable path, the same hardening.
    const worker = directives("transcript-fetch-worker.service");
    expect(worker.get("ReadWritePaths")).toBeUndefined();
    expect(one(worker, "EnvironmentFile")).toBe("-/etc/transcripts/worker.env");
    for (const [key, value] of Object.entries({ NoNewPrivileges: "yes", ProtectSystem: "strict", ProtectHome: "yes", PrivateTmp: "yes", CapabilityBoundingSet: "", User: "transcripts" })) {
      expect(one(worker, key), `transcript-fetch-worker.service ${key}`).toBe(value);
    }
  });
});
