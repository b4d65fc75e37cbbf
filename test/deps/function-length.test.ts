/**
 * No function of product code (server/, pipeline/, settings/) runs past 100
 * lines, counting the closures it holds: a longer one has parts that want
 * names of their own. The measure is the TypeScript parser's, so the check
 * sees exactly the functions the compiler sees.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PRODUCT = ["server", "pipeline", "settings"];
const LIMIT = 100;

interface LongFunction {
  where: string;
  name: string;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

function functionName(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isFunctionExpression(node)) && node.name) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText();
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  return "(anonymous)";
}

/** Every function-like node of one file longer than `limit` lines, outermost and inner alike. */
export function longFunctions(fileName: string, text: string, limit: number): LongFunction[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > limit) found.push({ where: `${fileName}:${first + 1}`, name: functionName(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("function length", () => {
  test(`no function of ${PRODUCT.join("/, ")}/ runs past ${LIMIT} lines`, () => {
    const long = PRODUCT.flatMap((dir) =>
      sourceFiles(path.join(ROOT, dir)).flatMap((file) => longFunctions(path.relative(ROOT, file), readFileSync(file, "utf8"), LIMIT)),
    );
    expect(long.map((f) => `${f.where} ${f.name} (${f.lines} lines)`)).toEqual([]);
  });

  test("the measure finds a long function, an arrow in a const and a method, and passes a short one", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const text = [
      `export function long() {\n${body(LIMIT)}\n}`,
      `export const arrow = () => {\n${body(LIMIT - 1)}\n};`,
      `class C {\n  method() {\n${body(LIMIT)}\n  }\n}`,
      `export function short() {\n${body(LIMIT - 2)}\n}`,
    ].join("\n");
    const found = longFunctions("sample.ts", text, LIMIT);
    expect(found.map((f) => [f.name, f.lines])).toEqual([
      ["long", LIMIT + 2],
      ["arrow", LIMIT + 1],
      ["method", LIMIT + 2],
    ]);
  });
});
