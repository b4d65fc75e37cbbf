/**
 * Snippets are cut by FTS5's snippet() with control characters as markers
 * (stored text never contains them: the build strips them), then the text is
 * HTML-escaped, and only then are the markers turned into <mark> tags. So a
 * transcript can never inject markup, whatever it contains.
 */

export const MARK_OPEN = "\u0001";
export const MARK_CLOSE = "\u0002";
export const ELLIPSIS = "\u0003";

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

export function renderSnippet(marked: string): string {
  return escapeHtml(marked)
    .replaceAll(MARK_OPEN, "<mark>")
    .replaceAll(MARK_CLOSE, "</mark>")
    .replaceAll(ELLIPSIS, "…");
}
