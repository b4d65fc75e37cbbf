/**
 * HTML entity decoding for caption text and page fragments, used by the
 * pipeline's fetch and the server's live fetch alike (both go through this
 * client). Caption text arrives escaped twice (XML, then HTML): the XML layer
 * is undone by the XML parser, this undoes the HTML layer, once.
 *
 * The `entities` package knows every named reference of the HTML standard
 * (`&Eacute;`, `&oacute;`, `&euro;` …) and decodes numeric references as the
 * standard says (invalid code points become U+FFFD).
 */
import { DecodingMode, decodeHTML } from "entities";

/**
 * Character references and every named HTML entity. Strict: a reference must
 * end in `;`, so text that is already decoded ("see &notes", "AT&T") is left
 * as written, where the standard's legacy rule would read `&not` in "&notes".
 */
export function decodeHtmlEntities(text: string): string {
  if (!text.includes("&")) return text;
  return decodeHTML(text, DecodingMode.Strict);
}
