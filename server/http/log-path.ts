/**
 * Text from a request as logged (the path, a request id). A client that puts
 * its API key in the path (a wrong URL template, `/v1/transcript/<key>`) must
 * not have the key land in the log in any spelling: the text is matched after
 * undoing percent-encoding to its end (`tsk%5F…`, `%74sk_…`, `%255F`, either
 * hex case), and anything shaped like a key keeps its key id and loses its
 * secret. Text holding no key is logged as it came; text holding one is
 * logged decoded, so no encoded copy of the secret is left beside the redaction.
 */
const KEY_IN_TEXT = /tsk_([0-9a-f]{8})_[A-Za-z0-9_-]+/gi;
/** Only text with an escape or a key prefix can hold a key: the common path skips the decoding. */
const MAY_HOLD_KEY = /%|tsk_/i;

export function redactKeys(text: string): string {
  if (!MAY_HOLD_KEY.test(text)) return text;
  const decoded = decodeAsciiEscapes(text);
  KEY_IN_TEXT.lastIndex = 0;
  if (!KEY_IN_TEXT.test(decoded)) return text;
  return decoded.replace(KEY_IN_TEXT, "tsk_$1_[redacted]");
}

/** The request path as logged. */
export const loggablePath = redactKeys;

/**
 * Decodes every `%XX` escape of an ASCII character, again and again until
 * none is left (`%255F` → `%5F` → `_`), in one linear pass: each decoded
 * character is pushed onto the output, and an escape that the push completes
 * at the output's end is decoded in turn. Escapes are never nested inside
 * each other, so the order of decoding does not change the result. Escapes
 * of other bytes (UTF-8) are kept: a key is ASCII.
 */
export function decodeAsciiEscapes(text: string): string {
  if (!text.includes("%")) return text;
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    out.push(text.charCodeAt(i));
    for (;;) {
      const n = out.length;
      if (n < 3 || out[n - 3] !== 0x25) break;
      const hi = hexValue(out[n - 2]!);
      const lo = hexValue(out[n - 1]!);
      if (hi < 0 || lo < 0 || hi > 7) break;
      out.length = n - 3;
      out.push(hi * 16 + lo);
    }
  }
  let result = "";
  for (let i = 0; i < out.length; i += 8192) result += String.fromCharCode(...out.slice(i, i + 8192));
  return result;
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}
