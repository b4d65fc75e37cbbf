/** The settings table (Markdown) of docs/settings.md, made from the rows (scripts/settings-table.ts writes it, a test compares it), and the list `npm start -- --help` prints. */
import { SETTINGS, type Command } from "./settings.js";

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
export const SETTINGS_TABLE_FILE = "docs/settings.md";

/** The table between a document's `settings:start` and `settings:end` markers, or undefined without them. */
export function documentedSettingsTable(doc: string): string | undefined {
  return /<!-- settings:start[^>]*-->\n([\s\S]*?)\n?<!-- settings:end -->/.exec(doc)?.[1];
}

/**
 * The settings `command` reads, for its `--help` in a terminal: each as `NAME=default` (or `NAME (unset)`) and its
 * meaning below it, wrapped to `width` columns, in the documented table's order.
 */
export function settingsHelp(command: Command, width = 100): string {
  return SETTINGS.filter((s) => s.readBy.includes(command))
    .map((s) => `  ${s.name}${s.default === "" ? " (unset)" : `=${s.default}`}\n${wrap(s.help.replace(/`/g, ""), width, "      ")}`)
    .join("\n");
}

/** `text` in lines of at most `width` columns (a longer word alone), each after `indent`. */
function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(indent + line);
  return lines.join("\n");
}
