/**
 * The served OpenAPI document, for CI and for the typed client of the contract test.
 *
 *   npx tsx scripts/openapi.ts lint     writes the document to a temp file and lints it with Redocly CLI (redocly.yaml)
 *   npx tsx scripts/openapi.ts types    regenerates test/contract/api-types.ts with openapi-typescript
 *   npx tsx scripts/openapi.ts write F  writes the document to F
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import { servedOpenApiDocument } from "../server/app/app.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const CLIENT_TYPES_FILE = path.join(ROOT, "test/contract/api-types.ts");

const HEADER = "// Generated from the served OpenAPI document by `npx tsx scripts/openapi.ts types` (openapi-typescript). Do not edit.\n";

/** The TypeScript types openapi-typescript makes of `document`, as the checked-in file holds them. */
export async function clientTypes(document: unknown): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0]);
  return `${HEADER}/* eslint-disable */\n${astToString(ast)}`;
}

function lint(): number {
  const dir = mkdtempSync(path.join(tmpdir(), "openapi-lint-"));
  try {
    const file = path.join(dir, "openapi.json");
    writeFileSync(file, JSON.stringify(servedOpenApiDocument(), null, 2));
    const redocly = path.join(ROOT, "node_modules/.bin/redocly");
    const run = spawnSync(redocly, ["lint", file, "--config", path.join(ROOT, "redocly.yaml"), "--max-problems", "1000"], {
      stdio: "inherit",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    return run.status ?? 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, file] = argv;
  switch (command) {
    case "lint":
      return lint();
    case "types":
      writeFileSync(CLIENT_TYPES_FILE, await clientTypes(servedOpenApiDocument()));
      console.log(`wrote ${path.relative(ROOT, CLIENT_TYPES_FILE)}`);
      return 0;
    case "write":
      if (file === undefined) break;
      writeFileSync(file, `${JSON.stringify(servedOpenApiDocument(), null, 2)}\n`);
      return 0;
  }
  console.error("usage: tsx scripts/openapi.ts lint | types | write FILE");
  return 2;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
