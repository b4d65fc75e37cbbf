/**
 * `--help` (and `-h`) on every command-line tool prints its usage on stdout and
 * exits 0, without reading settings or touching DATA_DIR; a missing or unknown
 * command is still a usage error (exit 2). Each tool runs as package.json's
 * script runs it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const SCRIPTS = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
const dataDir = mkdtempSync(path.join(tmpdir(), "cli-help-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run <script> -- ...args`, without npm: the script's command with this node. */
function run(script: string, args: string[]): Promise<Result> {
  const [command = "", ...scriptArgs] = (SCRIPTS[script] ?? "").split(" ");
  const bin = command === "node" ? process.execPath : path.join(ROOT, "node_modules/.bin", command);
  return new Promise((resolve, reject) => {
    const child = spawn(bin, [...scriptArgs, ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const cases: { script: string; args: string[]; says: RegExp }[] = [
  { script: "pipeline", args: ["--help"], says: /^usage: npm run pipeline -- <command>/ },
  { script: "pipeline", args: ["-h"], says: /^usage: npm run pipeline -- <command>[\s\S]*exit codes: 0 ok \(also: nothing new/ },
  { script: "pipeline", args: ["help"], says: /^usage: npm run pipeline -- <command>/ },
  { script: "pipeline", args: ["run", "--help"], says: /^usage: npm run pipeline -- run --channels FILE[\s\S]*--force/ },
  { script: "pipeline", args: ["run", "-h"], says: /^usage: npm run pipeline -- run --channels FILE/ },
  { script: "pipeline", args: ["build", "--help"], says: /^usage: npm run pipeline -- build \[--input FILE\.jsonl/ },
  { script: "pipeline", args: ["demo", "-h"], says: /^usage: npm run pipeline -- demo/ },
  { script: "pipeline", args: ["install-set", "--help"], says: /^usage: npm run pipeline -- install-set DIR \[--force\][\s\S]*exit codes: 0 ok/ },
  { script: "keys", args: ["--help"], says: /^Usage:\n {2}npm run keys -- create/ },
  { script: "keys", args: ["-h"], says: /^Usage:\n {2}npm run keys -- create/ },
  { script: "keys", args: ["create", "--help"], says: /^Usage:[\s\S]*revoke/ },
  { script: "bench", args: ["--help"], says: /--size/ },
  { script: "bench", args: ["-h"], says: /--size/ },
];

describe("--help", () => {
  test.concurrent.each(cases)("npm run $script -- $args prints usage on stdout and exits 0", async ({ script, args, says }) => {
    const result = await run(script, args);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(says);
    expect(result.stderr.replace(/npm warn.*\n/g, "")).toBe("");
  });

  test("needs no valid settings", async () => {
    for (const args of [["--help"], ["run", "--help"], ["build", "-h"]]) {
      const result = await new Promise<Result>((resolve, reject) => {
        const child = spawn(process.execPath, ["--import", "tsx", "pipeline/cli.ts", ...args], {
          cwd: ROOT,
          env: { ...process.env, DATA_DIR: dataDir, YOUTUBE_ORIGIN: "not a url" },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let stdout = "";
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stdout, stderr: "" }));
      });
      expect(result.code, args.join(" ")).toBe(0);
      expect(result.stdout).toMatch(/^usage: npm run pipeline --/);
    }
  });

  test("touches nothing in DATA_DIR", async () => {
    await Promise.all([run("pipeline", ["run", "--help"]), run("keys", ["--help"])]);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe("usage errors stay errors", () => {
  test.each([
    { script: "pipeline", args: [] as string[], says: /usage: npm run pipeline/ },
    { script: "pipeline", args: ["nonsense"], says: /Unknown command: nonsense/ },
    { script: "keys", args: ["nonsense"], says: /Unknown command/ },
  ])("npm run $script -- $args exits 2 with the usage on stderr", async ({ script, args, says }) => {
    const result = await run(script, args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(says);
    expect(result.stdout).toBe("");
  });
});
