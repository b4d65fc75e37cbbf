/**
 * Every pointer names something that exists: the links between the docs
 * (anchors included), the repository paths and source file names the docs,
 * the READMEs and the code's comments mention, and the docs' module maps,
 * which must also list every file of a folder they map. A failure lists each
 * broken pointer as `file:line: what`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokenLinksInText, brokenModuleMaps, brokenPointersInText, headingAnchors, headingSlug, readRepository } from "./pointers.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const repo = readRepository(ROOT);
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

/** The Markdown a reader follows: the README, the docs, the benchmarks and each folder's README (not the fixtures' dataset cards). */
const MARKDOWN = repo.files.filter(
  (f) => (f.endsWith(".md") && !f.includes("/")) || /^docs\/[^/]+\.md$/.test(f) || (/(^|\/)README\.md$/.test(f) && !f.startsWith("test/fixtures/")),
).filter((f) => f !== "CHANGELOG.md");
/** The product and tool sources whose comments and messages point into the tree (the tests write files of their own, named in their text). */
const SOURCES = repo.files.filter((f) => /^(server|pipeline|settings|scripts|bin)\/.*\.(ts|mjs|cjs|js)$/.test(f));
const DEPLOY = repo.files.filter((f) => f.startsWith("deploy/"));

describe("the pointer checks", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "pointers-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  for (const file of ["server/search/snippet/moments.ts", "server/search/snippet/snippet.ts", "server/search/search.ts", "server/data/catalog.ts"]) {
    mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(dir, file), "");
  }
  mkdirSync(path.join(dir, "docs"));
  writeFileSync(path.join(dir, "docs/a.md"), "# A page\n\n## GET / and GET /v1\n\n```sh\n# not a heading\n```\n\n## Faults: Redis or PostgreSQL unreachable\n");
  const fake = readRepository(dir);

  it("makes the anchors GitHub makes", () => {
    expect(headingSlug("GET / and GET /v1")).toBe("get--and-get-v1");
    expect(headingSlug("Shared by replicas (`DATABASE_URL`)")).toBe("shared-by-replicas-database_url");
    expect(headingSlug("POST /v1/transcripts/bulk")).toBe("post-v1transcriptsbulk");
    expect([...headingAnchors("# Errors\n## Errors\n```\n# comment\n```\n")]).toEqual(["errors", "errors-1"]);
  });

  it("names a missing file, a missing heading and a path or file name nothing answers to, with its line", () => {
    const doc = [
      "[ok](a.md#faults-redis-or-postgresql-unreachable) [index](#get--and-get-v1) [web](https://example.com/x.md)",
      "[gone](b.md) [no heading](a.md#configuration)",
      "`server/data/catalog.ts` and `server/data/moments.ts`; `snippet/moments.ts`, `ranking.ts`",
    ].join("\n");
    expect(brokenPointersInText(fake, "docs/a.md", doc)).toEqual([
      "docs/a.md:2: (b.md): docs/b.md does not exist",
      "docs/a.md:2: (a.md#configuration): docs/a.md has no heading #configuration",
      "docs/a.md:3: server/data/moments.ts: no such file or folder",
      "docs/a.md:3: ranking.ts: no file of that name",
    ]);
    expect(brokenPointersInText(fake, "server/x.ts", "// see server/search/search.js and DATA_DIR/pipeline/state.db, builds/<id>/")).toEqual([]);
  });

  it("names a module map's missing entries and the files of a mapped folder it leaves out", () => {
    const map = ["```", "server/search/", "  search.ts      the search", "  snippet/", "    snippet.ts   the window,", "                 continued", "    phrase.ts    gone", "```"].join("\n");
    expect(brokenModuleMaps(fake, "docs/map.md", map)).toEqual([
      "docs/map.md:7: module map names server/search/snippet/phrase.ts, which does not exist",
      "docs/map.md:4: module map of server/search/snippet/ leaves out server/search/snippet/moments.ts",
    ]);
  });
});

describe("pointers in the tree", () => {
  it("finds the documents, sources and module maps to check", () => {
    expect(MARKDOWN).toEqual(expect.arrayContaining(["README.md", "docs/api.md", "docs/search.md", "pipeline/README.md"]));
    expect(SOURCES.length).toBeGreaterThan(100);
    expect(brokenModuleMaps(repo, "docs/search.md", read("docs/search.md").replace("segment-index.ts", "segment-indices.ts"))).not.toEqual([]);
  });

  it("every link, path and file name of the docs and READMEs names something that exists", () => {
    const broken = MARKDOWN.flatMap((f) => brokenPointersInText(repo, f, read(f)));
    expect(broken, `broken pointers:\n${broken.join("\n")}`).toEqual([]);
  });

  it("every link of CHANGELOG.md leads to a file and heading that exist", () => {
    const broken = brokenLinksInText(repo, "CHANGELOG.md", read("CHANGELOG.md"));
    expect(broken, `broken links:\n${broken.join("\n")}`).toEqual([]);
  });

  it("every module map in the docs names files that exist, and every file of a folder it maps", () => {
    const broken = MARKDOWN.flatMap((f) => brokenModuleMaps(repo, f, read(f)));
    expect(broken, `broken module maps:\n${broken.join("\n")}`).toEqual([]);
  });

  it("every repository path and source file name in the code and deploy files names something that exists", () => {
    const broken = [...SOURCES, ...DEPLOY].flatMap((f) => brokenPointersInText(repo, f, read(f)));
    expect(broken, `broken pointers:\n${broken.join("\n")}`).toEqual([]);
  });
});

describe("docs a reader can hold", () => {
  it("no page of docs/ is over 450 lines", () => {
    const long = repo.files
      .filter((f) => /^docs\/[^/]+\.md$/.test(f))
      .map((f) => [f, read(f).trimEnd().split("\n").length] as const)
      .filter(([, lines]) => lines > 450)
      .map(([f, lines]) => `${f}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
