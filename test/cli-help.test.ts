/**
 * `--help` (and `-h`) on every command-line tool prints its usage on stdout and
 * exits 0, without reading settings or touching DATA_DIR; a missing or unknown
 * command is still a usage error (exit 2), and so is any other argument to
 * `npm start`. Each tool runs as package.json's script runs it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { SETTINGS } from "../settings/settings.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const SCRIPTS = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
const dataDir = mkdtempSync(path.join(tmpdir(), "cli-help-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `npm run <script> -- ...args`, without npm: the script's command (after an `exec`) with this node.
 * A tool that ignored its arguments and kept running (a server) is killed after a while: its code is then null.
 */
function run(script: string, args: string[], env: Record<string, string> = {}): Promise<Result> {
  const [command = "", ...scriptArgs] = (SCRIPTS[script] ?? "").replace(/^exec /, "").split(" ");
  const bin = command === "node" ? process.execPath : path.join(ROOT, "node_modules/.bin", command);
  return new Promise((resolve, reject) => {
    const child = spawn(bin, [...scriptArgs, ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `npm start`'s settings: a server that ignored its arguments would serve on a free port, not on 3000. */
const START_ENV = { PORT: "0", HOST: "127.0.0.1" };

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
  // npm start: its usage, then every setting it reads with its default and meaning.
  { script: "start", args: ["--help"], says: /^usage: npm start[\s\S]*exit codes:[\s\S]*\n {2}PORT=3000\n {6}TCP port to listen on[\s\S]*\n {2}HOST=127\.0\.0\.1\n[\s\S]*\n {2}DATA_DIR=\.\/data\n[\s\S]*\n {2}NEGATIVE_CACHE_SIZE=10000\n/ },
  { script: "start", args: ["-h"], says: /^usage: npm start/ },
  { script: "start", args: ["help"], says: /^usage: npm start/ },
];

describe("--help", () => {
  test.concurrent.each(cases)("npm run $script -- $args prints usage on stdout and exits 0", async ({ script, args, says }) => {
    const result = await run(script, args, script === "start" ? START_ENV : {});
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
    const start = await run("start", ["--help"], { ...START_ENV, PORT: "not-a-port" });
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout).toMatch(/^usage: npm start/);
  });

  test("npm start -- --help lists every setting the server reads, and no other", async () => {
    const { stdout } = await run("start", ["--help"], START_ENV);
    const listed = [...stdout.matchAll(/^ {2}([A-Z][A-Z0-9_]*)(?:=| \(unset\)$)/gm)].map((m) => m[1]);
    expect(listed).toEqual(SETTINGS.filter((s) => s.readBy.includes("server")).map((s) => s.name));
  });

  test("touches nothing in DATA_DIR", async () => {
    await Promise.all([run("pipeline", ["run", "--help"]), run("keys", ["--help"]), run("start", ["--help"], START_ENV)]);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe("usage errors stay errors", () => {
  test.each([
    { script: "pipeline", args: [] as string[], says: /usage: npm run pipeline/ },
    { script: "pipeline", args: ["nonsense"], says: /Unknown command: nonsense/ },
    { script: "keys", args: ["nonsense"], says: /Unknown command/ },
    { script: "start", args: ["--nonsense"], says: /^npm start: unknown option --nonsense\b.*\n\nusage: npm start/ },
    { script: "start", args: ["--port=3001"], says: /^npm start: unknown option --port=3001\b.*PORT=3001 npm start/ },
    { script: "start", args: ["serve"], says: /^npm start: unexpected argument serve\b/ },
  ])("npm run $script -- $args exits 2 with the usage on stderr", async ({ script, args, says }) => {
    const result = await run(script, args, script === "start" ? START_ENV : {});
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(says);
    expect(result.stdout).toBe("");
  });
});
