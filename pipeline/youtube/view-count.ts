/**
 * View counts as YouTube prints them in lists: "1,234 views", "1.2M views",
 * "No views", "1 view". Browse gives only this text, never the number.
 */

const SUFFIX: Record<string, number> = { K: 1e3, M: 1e6, B: 1e9 };

/** The count a view-count text stands for, or undefined when the text is not one. */
export function parseViewCount(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (/^no views?$/i.test(trimmed)) return 0;
  const match = /^([\d.,]+)\s*([KMB])?\s*(?:views?|watching)?$/i.exec(trimmed);
  if (!match?.[1]) return undefined;
  const suffix = match[2]?.toUpperCase();
  if (suffix) {
    const value = Number(match[1].replace(/,/g, ""));
    const factor = SUFFIX[suffix];
    return Number.isFinite(value) && factor !== undefined ? Math.round(value * factor) : undefined;
  }
  // Without a suffix, both "," and "." are thousands separators (en-US and de-DE pages).
  const digits = match[1].replace(/[.,]/g, "");
  return digits.length > 0 ? Number(digits) : undefined;
}

/** Whether a metadata text is a view count rather than an age or a length. */
export function isViewCountText(text: string): boolean {
  return parseViewCount(text) !== undefined && /views?|watching/i.test(text);
}
