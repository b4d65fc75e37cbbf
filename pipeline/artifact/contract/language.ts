/**
 * The one rule for matching a requested language against a transcript's:
 * the same BCP 47 tag, compared case-insensitively (RFC 5646 §2.1.1), so
 * `en-us` is `en-US` and `DE` is `de`; a tag never matches a longer or
 * shorter one (`en` is not `en-GB`). Stored lookups, track choice and the
 * live fetcher's caches all use it, so a code means the same everywhere.
 */

/** The form two tags are compared in, and the key under which a language is cached. Tags are ASCII, so only A-Z is folded. */
export function languageKey(code: string): string {
  // Most codes are lower case already ("en"): the test is cheaper than a replace that finds nothing.
  return HAS_UPPER.test(code) ? code.replace(/[A-Z]+/g, (upper) => upper.toLowerCase()) : code;
}

const HAS_UPPER = /[A-Z]/;

/** Whether two language codes name the same language. */
export function sameLanguage(a: string, b: string): boolean {
  return a.length === b.length && languageKey(a) === languageKey(b);
}
