/**
 * The configuration table of README.md, made from `SETTINGS` (server/config.ts).
 * `npx tsx scripts/settings-table.ts` prints it; `--write` puts it into README.md
 * between the `settings:start` and `settings:end` markers.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { SETTINGS } from "../server/config.js";

const escape = (text: string) => text.replace(/\|/g, "\\|");
const table = [
  "| variable | default | meaning |",
  "|---|---|---|",
  ...SETTINGS.map((s) => `| \`${s.name}\` | ${s.default === "" ? "(none)" : `\`${escape(s.default)}\``} | ${escape(s.help)} |`),
].join("\n");

if (process.argv.includes("--write")) {
  const readme = readFileSync("README.md", "utf8");
  const updated = readme.replace(/(<!-- settings:start[^>]*-->\n)[\s\S]*?(<!-- settings:end -->)/, `$1${table}\n$2`);
  if (updated === readme && !readme.includes(table)) throw new Error("README.md has no settings markers");
  writeFileSync("README.md", updated);
} else {
  console.log(table);
}
