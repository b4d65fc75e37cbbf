/**
 * The import rules of .dependency-cruiser.cjs (`npm run lint:deps`, run by
 * .ci/run): the real tree passes them, and a copy of it with one forbidden
 * import of each kind added fails, naming each rule and each import.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DEPCRUISE = path.join(ROOT, "node_modules/.bin/depcruise");
const CONFIG = ".dependency-cruiser.cjs";

function lintDeps(cwd: string): { status: number | null; output: string } {
  const result = spawnSync(DEPCRUISE, ["server", "pipeline", "settings", "--config", CONFIG], { cwd, encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

describe("npm run lint:deps", () => {
  test("the repository's own tree keeps the rules", () => {
    const { status, output } = lintDeps(ROOT);
    expect(output).toContain("no dependency violations found");
    expect(status).toBe(0);
  });

  test("a copy of the tree with forbidden imports added fails, naming each rule and import", () => {
    const copy = mkdtempSync(path.join(tmpdir(), "import-rules-"));
    copies.push(copy);
    for (const entry of ["server", "pipeline", "settings", "tsconfig.json", CONFIG]) cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
    const add = (file: string, line: string) => appendFileSync(path.join(copy, file), `\n${line}\n`);
    // The server loading the build (statically, and the demo through a dynamic import).
    add("server/main.ts", 'import { buildArtifacts } from "../pipeline/build.js";\nvoid buildArtifacts;');
    add("server/demo.ts", 'export const load = () => import("../pipeline/demo.js");');
    // The pipeline reaching into the server.
    add("pipeline/run/run-command.ts", 'import { loadConfig } from "../../server/config.js";\nvoid loadConfig;');
    // A shared module pulling in the rest of the pipeline, which the server would then load.
    add("pipeline/artifact/layout.ts", 'import { publishBuild } from "../publish.js";\nvoid publishBuild;');
    // settings/ depending on a side.
    add("settings/define.ts", 'import { dataDirLayout } from "../pipeline/artifact/layout.js";\nvoid dataDirLayout;');
    // An import cycle.
    writeFileSync(path.join(copy, "pipeline/artifact/cycle-a.ts"), 'import { b } from "./cycle-b.js";\nexport const a = () => b;\n');
    writeFileSync(path.join(copy, "pipeline/artifact/cycle-b.ts"), 'import { a } from "./cycle-a.js";\nexport const b = () => a;\n');

    const { status, output } = lintDeps(copy);
    expect(status).not.toBe(0);
    expect(output).toMatch(/error server-only-shared-pipeline: server\/main\.ts → pipeline\/build\.ts/);
    expect(output).toMatch(/error server-only-shared-pipeline: server\/demo\.ts → pipeline\/demo\.ts/);
    expect(output).toMatch(/error pipeline-not-server: pipeline\/run\/run-command\.ts → server\/config\.ts/);
    expect(output).toMatch(/error shared-stays-shared: pipeline\/artifact\/layout\.ts → pipeline\/publish\.ts/);
    expect(output).toMatch(/error settings-neither-side: settings\/define\.ts → pipeline\/artifact\/layout\.ts/);
    expect(output).toMatch(/error no-circular: pipeline\/artifact\/cycle-[ab]\.ts → /);
  }, 120_000);
});
