/**
 * Finds pointers that name nothing: in Markdown, a relative link whose file
 * or `#anchor` is missing; in Markdown and source, a repository path
 * (`server/…`, `docs/…`, …) or a source file name (`moments.ts`) that no
 * file answers to; in a module map (a code block drawn as a tree under a
 * folder), an entry that does not exist, or a file of a mapped folder that
 * the map leaves out. Each finding is one line, `file:line: what`, so a
 * broken pointer is quick to find and fix.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** Top-level folders a path in prose or a comment may start with. */
const ROOTS = ["server", "pipeline", "settings", "scripts", "docs", "test", "deploy", "bin"];
/** Folders that hold no pointers to check and no files pointed at: anywhere, and at the root (what a run leaves). */
const SKIPPED = new Set(["node_modules", ".git"]);
const SKIPPED_AT_ROOT = new Set(["data", "coverage", ".bench", ".scratch", "test-results"]);

/** A path from the repository root: `server/search/search.ts`, `deploy/systemd/`. */
const ROOTED_PATH = new RegExp(`(?<![\\w./@<>*~-])((?:${ROOTS.join("|")})/[\\w./*<>…-]*)`, "g");
/** A source file's name, maybe under a folder or two: `moments.ts`, `memory/budget.ts`. */
const SOURCE_NAME = /(?<![\w./@<>*~-])((?:[\w-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|mjs|cjs))(?![\w/-])/g;
/** A Markdown link, `[text](target)`. */
const MARKDOWN_LINK = /\[[^\]\n]*\]\(([^)\s]+)\)/g;

export interface Repository {
  root: string;
  /** Every file under the root, as a path from it with `/` separators (the skipped folders left out). */
  files: string[];
}

export function readRepository(root: string): Repository {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      if (SKIPPED.has(entry.name) || (dir === "" && SKIPPED_AT_ROOT.has(entry.name))) continue;
      const rel = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else files.push(rel);
    }
  };
  walk("");
  return { root, files: files.sort() };
}

const isDirectory = (repo: Repository, rel: string) => existsSync(path.join(repo.root, rel)) && statSync(path.join(repo.root, rel)).isDirectory();
const exists = (repo: Repository, rel: string) => existsSync(path.join(repo.root, rel));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a Markdown text's headings (outside code blocks), a repeated one with `-1`, `-2`… as GitHub makes them. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? undefined : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Why a path from the root names nothing, or undefined when it names a file or folder. */
function rootedPathProblem(repo: Repository, pointer: string): string | undefined {
  // A placeholder (`builds/<id>/`) or an elision names a family of paths: its fixed start must exist.
  const cut = pointer.search(/[<…*]/);
  const fixed = (cut < 0 ? pointer : pointer.slice(0, pointer.lastIndexOf("/", cut) + 1)).replace(/[.,:;]+$/, "");
  if (fixed === "" || exists(repo, fixed)) return undefined;
  // A module named as it is imported (`search/search.js`) is its TypeScript source.
  if (fixed.endsWith(".js") && exists(repo, fixed.replace(/\.js$/, ".ts"))) return undefined;
  return `${pointer}: no such file or folder`;
}

/** Why a source file's name answers to no file of the tree, or undefined when one ends with it. */
function sourceNameProblem(repo: Repository, name: string): string | undefined {
  if (ROOTS.some((r) => name.startsWith(`${r}/`))) return undefined; // checked as a path from the root
  return repo.files.some((f) => f === name || f.endsWith(`/${name}`)) ? undefined : `${name}: no file of that name`;
}

/** The pointers of one text that name nothing, as `file:line: what`. */
export function brokenPointersInText(repo: Repository, file: string, text: string): string[] {
  const broken: string[] = [];
  const isMarkdown = file.endsWith(".md");
  text.split("\n").forEach((line, i) => {
    const at = `${file}:${i + 1}`;
    if (isMarkdown) {
      for (const m of line.matchAll(MARKDOWN_LINK)) {
        const problem = linkProblem(repo, file, m[1]!);
        if (problem) broken.push(`${at}: ${problem}`);
      }
    }
    for (const m of line.matchAll(ROOTED_PATH)) {
      const problem = rootedPathProblem(repo, m[1]!);
      if (problem) broken.push(`${at}: ${problem}`);
    }
    for (const m of line.matchAll(SOURCE_NAME)) {
      const problem = sourceNameProblem(repo, m[1]!);
      if (problem) broken.push(`${at}: ${problem}`);
    }
  });
  return broken;
}

/** Why a Markdown link of `file` leads nowhere, or undefined when its file (and heading) exist. */
function linkProblem(repo: Repository, file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:, file: …
  const [pathPart = "", anchor] = target.split("#", 2);
  const resolved = pathPart === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(pathPart)));
  if (resolved.startsWith("..") || !exists(repo, resolved)) return `(${target}): ${resolved} does not exist`;
  if (anchor === undefined || anchor === "") return undefined;
  if (!resolved.endsWith(".md")) return `(${target}): an anchor into a file that is not Markdown`;
  const anchors = headingAnchors(readFileSync(path.join(repo.root, resolved), "utf8"));
  return anchors.has(anchor) ? undefined : `(${target}): ${resolved} has no heading #${anchor}`;
}

/** The links of a Markdown text that lead nowhere (its other mentions of paths unchecked), as `file:line: what`. */
export function brokenLinksInText(repo: Repository, file: string, text: string): string[] {
  return text.split("\n").flatMap((line, i) =>
    [...line.matchAll(MARKDOWN_LINK)].flatMap((m) => {
      const problem = linkProblem(repo, file, m[1]!);
      return problem ? [`${file}:${i + 1}: ${problem}`] : [];
    }),
  );
}

interface MapEntry {
  /** The folder or file the entry names, from the root. */
  path: string;
  line: number;
  folder: boolean;
}

/**
 * The module maps of a Markdown text: each code block whose first line names
 * a folder (`server/search/`), drawn as a tree, two spaces of indent a level.
 * A line indented more than one level past the last entry, or whose first
 * word is not a file or folder name, continues the line before it.
 */
export function moduleMaps(text: string): MapEntry[][] {
  const maps: MapEntry[][] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open || (open[1] !== "" && open[1] !== "text")) continue;
    const block: { text: string; line: number }[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) block.push({ text: lines[i]!, line: i + 1 });
    if (!/^[\w.-]+(?:\/[\w.-]+)*\/(?:\s|$)/.test(block[0]?.text ?? "")) continue;
    const entries: MapEntry[] = [];
    const stack: string[] = []; // the folder at each level
    for (const { text: row, line } of block) {
      const indent = row.length - row.trimStart().length;
      const level = indent / 2;
      if (!Number.isInteger(level) || level > stack.length) continue;
      const names: string[] = [];
      for (const word of row.trim().split(/\s+/)) {
        const name = word.replace(/,$/, "");
        if (!/^[\w.-]+(?:\/[\w.-]+)*\/?$/.test(name) || !(name.endsWith("/") || /\.\w+$/.test(name))) break;
        names.push(name);
        if (!word.endsWith(",")) break;
      }
      if (names.length === 0) continue;
      stack.length = level;
      const parent = stack.join("");
      for (const name of names) {
        entries.push({ path: parent + name, line, folder: name.endsWith("/") });
        if (name.endsWith("/")) stack[level] = name;
      }
    }
    maps.push(entries);
  }
  return maps;
}

/** The entries of a document's module maps that name nothing, and the files a mapped folder holds that its map leaves out. */
export function brokenModuleMaps(repo: Repository, file: string, text: string): string[] {
  const broken: string[] = [];
  for (const entries of moduleMaps(text)) {
    for (const entry of entries) {
      const ok = entry.folder ? isDirectory(repo, entry.path) : exists(repo, entry.path);
      if (!ok) broken.push(`${file}:${entry.line}: module map names ${entry.path}, which does not exist`);
    }
    // A folder whose files the map lists is mapped whole: its source files and folders all have an entry.
    const listed = new Set(entries.map((e) => e.path.replace(/\/$/, "")));
    for (const folder of entries.filter((e) => e.folder && isDirectory(repo, e.path))) {
      const children = entries.filter((e) => path.posix.dirname(e.path.replace(/\/$/, "")) === folder.path.replace(/\/$/, ""));
      if (!children.some((e) => !e.folder)) continue;
      for (const child of readdirSync(path.join(repo.root, folder.path), { withFileTypes: true })) {
        const rel = `${folder.path}${child.name}`;
        const mapped = child.isDirectory() || /\.(ts|mjs|cjs)$/.test(child.name);
        if (mapped && !listed.has(rel)) broken.push(`${file}:${folder.line}: module map of ${folder.path} leaves out ${rel}`);
      }
    }
  }
  return broken;
}
