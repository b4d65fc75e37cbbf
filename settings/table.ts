/** The settings table (Markdown) of docs/operations.md, made from the rows: scripts/settings-table.ts writes it, a test compares it. */
import { SETTINGS } from "./settings.js";

const escape = (text: string) => text.replace(/\|/g, "\\|");

export function settingsTable(): string {
  return [
    "| variable | default | read by | meaning |",
    "|---|---|---|---|",
    ...SETTINGS.map(
      (s) => `| \`${s.name}\` | ${s.default === "" ? "(none)" : `\`${escape(s.default)}\``} | ${s.readBy.join(", ")} | ${escape(s.help)} |`,
    ),
  ].join("\n");
}

/** The document that holds the table, relative to the repository root. */
export const SETTINGS_TABLE_FILE = "docs/operations.md";

/** The table between a document's `settings:start` and `settings:end` markers, or undefined without them. */
export function documentedSettingsTable(doc: string): string | undefined {
  return /<!-- settings:start[^>]*-->\n([\s\S]*?)\n?<!-- settings:end -->/.exec(doc)?.[1];
}
