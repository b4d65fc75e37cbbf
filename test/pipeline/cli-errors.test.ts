/**
 * The pipeline CLI's refusals as an operator meets them: a bad flag or a bad
 * path on the command line is one line that says what is wrong (then the
 * usage, for a flag), exit 2, and nothing is written to DATA_DIR.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXPORT_USAGE } from "../../pipeline/export/usage.js";
import { EXIT } from "../../pipeline/command/exit-codes.js";
import { makeVideo } from "../youtube/helpers/records.js";

const REPO = join(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "cli-errors-"));
// Never created: every refusal here comes before the settings' DATA_DIR is used.
const dataDir = join(work, "data");
afterAll(() => rmSync(work, { recursive: true, force: true }));

function pipeline(args: string[], as: { uid?: number; gid?: number } = {}) {
  const result = spawnSync(process.execPath, ["--import", "tsx", "pipeline/cli.ts", ...args], {
    ...as,
    cwd: REPO,
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: "utf8",
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("export with a bad flag", () => {
  const out = join(work, "out");
  it.each([
    { args: ["--format", "csv", "--out", out], says: "export: --format must be parquet or jsonl, not csv" },
    { args: ["--out", out], says: "export: --format is missing: parquet or jsonl" },
    { args: ["--format", "parquet"], says: "export: --out is missing: the new or empty folder to write the export to" },
    { args: [], says: "export: --format and --out are missing (or --verify DIR, to check an export)" },
    { args: ["--format", "jsonl", "--out", out, "--shard-rows", "0"], says: "export: --shard-rows must be a whole number, at least 1, not 0" },
    { args: ["--format", "jsonl", "--out", out, "--shard-rows", "2.5"], says: "export: --shard-rows must be a whole number, at least 1, not 2.5" },
    { args: ["--verify", work, "--format", "jsonl"], says: "export: --verify takes no other option, not --format" },
  ].map((c) => ({ ...c, command: c.args.join(" ").replaceAll(out, "OUT").replaceAll(work, "DIR") })))("export $command says why on one line, then the usage, and exits 2", ({ args, says }) => {
    const result = pipeline(["export", ...args]);
    expect(result.code, result.stderr).toBe(EXIT.usage);
    expect(result.stderr).toBe(`${says}\n${EXPORT_USAGE}\n`);
    expect(result.stdout).toBe("");
    expect(existsSync(out)).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe("export --verify with a path that is not an export folder", () => {
  it("names a folder that does not exist, with exit 2", () => {
    const missing = join(work, "no-such-export");
    const result = pipeline(["export", "--verify", missing]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toBe(`export: --verify ${missing}: no such folder\n`);
  });

  it("names a path that is a file, with exit 2", () => {
    const file = join(work, "a-file.txt");
    writeFileSync(file, "not an export\n");
    const result = pipeline(["export", "--verify", file]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toBe(`export: --verify ${file} is a file, not an export folder\n`);
  });

  it("still tells a folder without manifest.json apart, with exit 1", () => {
    const folder = join(work, "not-an-export");
    mkdirSync(folder, { recursive: true });
    const result = pipeline(["export", "--verify", folder]);
    expect(result.code).toBe(EXIT.failed);
    expect(result.stderr).toBe(`${folder} is not a whole export: manifest.json is missing (an export writes it last)\n`);
  });
});

describe("build --input with a path it cannot read", () => {
  const inputs = join(work, "inputs");
  mkdirSync(inputs, { recursive: true });
  const records = join(inputs, "records.jsonl");
  writeFileSync(records, "");

  it("names a file that does not exist on one line, exits 2 and writes nothing", () => {
    const missing = join(inputs, "missing.jsonl");
    const result = pipeline(["build", "--input", records, "--input", missing]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toBe(`build: --input ${missing}: no such file or folder\n`);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("names a file it may not read on one line, exits 2 and writes nothing", () => {
    const secret = join(inputs, "secret.jsonl");
    writeFileSync(secret, "", { mode: 0o000 });
    // Root reads any file: then the CLI runs as nobody, for whom the file (owned by root, mode 000) is unreadable.
    const asNobody = process.getuid?.() === 0;
    if (asNobody) chmodSync(work, 0o755);
    const result = pipeline(["build", "--input", secret], asNobody ? { uid: 65534, gid: 65534 } : {});
    expect(result.code, result.stderr).toBe(EXIT.usage);
    expect(result.stderr).toBe(`build: --input ${secret}: not readable (permission denied)\n`);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("names a folder that is not an export before it takes the lock (exit 1)", () => {
    const result = pipeline(["build", "--input", inputs]);
    expect(result.code).toBe(EXIT.failed);
    expect(result.stderr).toBe(`build: --input ${inputs} is not a whole export: manifest.json is missing (an export writes it last)\n`);
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe("export --out naming a file", () => {
  it("says so on one line and exits 2", () => {
    const file = join(work, "out-file.txt");
    writeFileSync(file, "");
    const result = pipeline(["export", "--format", "jsonl", "--out", file]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toBe(`export: --out ${file} is a file, not a folder\n`);
  });
});

describe("the other commands with a bad flag or argument", () => {
  const BUILD_SYNOPSIS = "usage: npm run pipeline -- build [--input FILE.jsonl|DIR …] [--dataset NAME] [--force]";
  const INSTALL_SET_SYNOPSIS = "usage: npm run pipeline -- install-set DIR [--force]";
  it.each([
    { args: ["build", "--input"], says: "build: Option '--input <value>' argument missing", then: BUILD_SYNOPSIS },
    { args: ["build", "--input", "videos.jsonl", "--bogus"], says: "build: Unknown option '--bogus'", then: BUILD_SYNOPSIS },
    { args: ["build", "videos.jsonl"], says: "build: Unexpected argument 'videos.jsonl'. This command does not take positional arguments", then: BUILD_SYNOPSIS },
    { args: ["install-set"], says: "install-set: DIR is missing: the builds/<id> folder copied from another machine", then: INSTALL_SET_SYNOPSIS },
    { args: ["install-set", "a", "b"], says: "install-set: takes one DIR, not 2", then: INSTALL_SET_SYNOPSIS },
    // Node's own message goes on to explain `--` (in words that vary with its version): the line is checked up to there.
    { args: ["install-set", "a", "--bogus"], says: "install-set: Unknown option '--bogus'", then: INSTALL_SET_SYNOPSIS, more: true },
    { args: ["install-set", "a", "--force=yes"], says: "install-set: Option '--force' does not take an argument", then: INSTALL_SET_SYNOPSIS },
    { args: ["demo", "now"], says: "demo: takes no arguments, not now", then: "usage: npm run pipeline -- demo" },
  ].map((c) => ({ more: false, ...c, command: c.args.join(" ") })))("$command says why on one line, then the usage, and exits 2", ({ args, says, then, more }) => {
    const result = pipeline(args);
    expect(result.code, result.stderr).toBe(EXIT.usage);
    const [line, ...rest] = result.stderr.split("\n");
    expect(more ? line?.slice(0, says.length + 1) : line).toBe(more ? `${says}.` : says);
    expect(rest).toEqual([then, ""]);
    expect(result.stdout).toBe("");
    expect(existsSync(dataDir)).toBe(false);
  });

  it("no command at all says so above the list of commands", () => {
    const result = pipeline([]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toMatch(/^pipeline: a command is missing\nusage: npm run pipeline -- <command> \[options\]\n/);
  });
});

describe("build --input with invalid records", () => {
  it("names each skipped record by its file and line and says which field broke which rule", () => {
    const input = join(work, "invalid.jsonl");
    const good = makeVideo({ videoId: "cliErrors01" });
    writeFileSync(input, `${JSON.stringify({ ...good, videoId: 5 })}\n{}\n${JSON.stringify(good)}\n`);
    const data = mkdtempSync(join(work, "data-"));
    const result = spawnSync(process.execPath, ["--import", "tsx", "pipeline/cli.ts", "build", "--input", input], {
      cwd: REPO,
      env: { ...process.env, DATA_DIR: data },
      encoding: "utf8",
    });
    expect(result.status, result.stderr).toBe(EXIT.ok);
    const skipped = result.stderr.split("\n").filter((line) => line.includes("skipped"));
    expect(skipped[0]).toBe(`[pipeline] skipped ${input}:1: videoId: Invalid input: expected string, received number`);
    expect(skipped[1]).toBe(`[pipeline] skipped ${input}:2: videoId: Invalid input: expected string, received undefined`);
    expect(skipped[2]).toBe("[pipeline] imported 1 records (2 skipped)");
    expect(skipped).toHaveLength(3);
  }, 120_000);
});
