/**
 * The import rules of .dependency-cruiser.cjs (`npm run lint:deps`, run by
 * .ci/run): the real tree passes them, and a copy of it with one forbidden
 * import of each kind added fails, naming each rule and each import; a
 * copy importing the artifact format behind its faces fails; a copy with
 * one folder loop added fails, naming the folders.
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

/** A copy of the tree and the configurations, for adding imports to. */
function copyTree(): string {
  const copy = mkdtempSync(path.join(tmpdir(), "import-rules-"));
  copies.push(copy);
  for (const entry of ["server", "pipeline", "settings", "tsconfig.json", CONFIG]) cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
  return copy;
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
    const copy = copyTree();
    const add = (file: string, line: string) => appendFileSync(path.join(copy, file), `\n${line}\n`);
    // The server loading the build (statically, and the demo through a dynamic import).
    add("server/main.ts", 'import { buildArtifacts } from "../pipeline/build/build-artifacts.js";\nvoid buildArtifacts;');
    add("server/start/demo.ts", 'export const load = () => import("../../pipeline/corpus/demo-set.js");');
    // The pipeline reaching into the server.
    add("pipeline/run/run-command.ts", 'import { loadConfig } from "../../server/config.js";\nvoid loadConfig;');
    // A shared module pulling in the rest of the pipeline, which the server would then load.
    add("pipeline/artifact/layout/layout.ts", 'import { publishBuild } from "../../publish/publish.js";\nvoid publishBuild;');
    // settings/ depending on a side.
    add("settings/define.ts", 'import { dataDirLayout } from "../pipeline/artifact/layout/layout.js";\nvoid dataDirLayout;');
    // An import cycle.
    writeFileSync(path.join(copy, "pipeline/artifact/cycle-a.ts"), 'import { b } from "./cycle-b.js";\nexport const a = () => b;\n');
    writeFileSync(path.join(copy, "pipeline/artifact/cycle-b.ts"), 'import { a } from "./cycle-a.js";\nexport const b = () => a;\n');

    const { status, output } = lintDeps(copy);
    expect(status).not.toBe(0);
    expect(output).toMatch(/error server-only-shared-pipeline: server\/main\.ts → pipeline\/build\/build-artifacts\.ts/);
    expect(output).toMatch(/error server-only-shared-pipeline: server\/start\/demo\.ts → pipeline\/corpus\/demo-set\.ts/);
    expect(output).toMatch(/error pipeline-not-server: pipeline\/run\/run-command\.ts → server\/config\.ts/);
    expect(output).toMatch(/error shared-stays-shared: pipeline\/artifact\/layout\/layout\.ts → pipeline\/publish\/publish\.ts/);
    expect(output).toMatch(/error settings-neither-side: settings\/define\.ts → pipeline\/artifact\/layout\/layout\.ts/);
    expect(output).toMatch(/error no-circular: pipeline\/artifact\/cycle-[ab]\.ts → /);
  }, 120_000);

  test("a copy of the tree importing artifact files behind their faces fails, naming each import; through the faces it passes", () => {
    const copy = copyTree();
    const add = (file: string, line: string) => appendFileSync(path.join(copy, file), `\n${line}\n`);
    // The server reaching past the text face, and one artifact folder past another's.
    add("server/main.ts", 'import { tokenize } from "../pipeline/artifact/text/text.js";\nvoid tokenize;');
    add("pipeline/artifact/segments/segments.ts", 'import { SCHEMA_VERSION } from "../contract/contract.js";\nvoid SCHEMA_VERSION;');
    // The same names through the faces, and a folder's own file directly, are allowed.
    add("server/start/demo.ts", 'import { tokenize as viaFace } from "../../pipeline/artifact/text/index.js";\nvoid viaFace;');
    add("pipeline/artifact/segments/index.ts", 'export { encodeSegments } from "./segments.js";');

    const { status, output } = lintDeps(copy);
    expect(status).not.toBe(0);
    expect(output).toMatch(/error artifact-through-face: server\/main\.ts → pipeline\/artifact\/text\/text\.ts/);
    expect(output).toMatch(/error artifact-folders-through-faces: pipeline\/artifact\/segments\/segments\.ts → pipeline\/artifact\/contract\/contract\.ts/);
    expect(output).toMatch(/x 2 dependency violations/);
  }, 120_000);

  test("a copy of the tree with one folder loop added fails, naming the folders, though no file is in a cycle", () => {
    const copy = copyTree();
    // server/search takes its request and hit types from server/data; data importing search back closes a folder loop.
    appendFileSync(path.join(copy, "server/data/catalog.ts"), '\nimport { parseSearchQuery } from "../search/query.js";\nvoid parseSearchQuery;\n');

    const { status, output } = lintDeps(copy);
    expect(status).not.toBe(0);
    expect(output).toMatch(/error no-folder-loop: server\/data → \s+server\/search →\s+server\/data\n/);
    expect(output).toMatch(/error no-folder-loop: server\/search → \s+server\/data →\s+server\/search\n/);
    // The file rules see nothing: no file is in a cycle.
    expect(output).not.toMatch(/error no-circular/);
    expect(output).toMatch(/x 2 dependency violations/);
  }, 120_000);
});
