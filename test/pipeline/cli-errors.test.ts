/**
 * The pipeline CLI's refusals as an operator meets them: a bad flag or a bad
 * path on the command line is one line that says what is wrong (then the
 * usage, for a flag), exit 2, and nothing is written to DATA_DIR.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXPORT_USAGE } from "../../pipeline/export/usage.js";
import { EXIT } from "../../pipeline/run/exit-codes.js";

const REPO = join(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "cli-errors-"));
// Never created: every refusal here comes before the settings' DATA_DIR is used.
const dataDir = join(work, "data");
afterAll(() => rmSync(work, { recursive: true, force: true }));

function pipeline(args: string[]) {
  const result = spawnSync(process.execPath, ["--import", "tsx", "pipeline/cli.ts", ...args], {
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
