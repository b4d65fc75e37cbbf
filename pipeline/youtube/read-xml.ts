/**
 * The XML documents YouTube sends (timedtext, the channel feed), read with
 * saxes: a strict, streaming parser that checks well-formedness as it goes,
 * in one pass, with no tree built (see README.md, "Dependencies, and why").
 *
 * Events carry the path of element names from the root, so callers pick out
 * what they need without building a tree. Text arrives XML-decoded.
 */
import { SaxesParser } from "saxes";

export interface XmlEvents {
  /** An element starts; `path` ends with its name. Attribute values are XML-decoded. */
  open?(path: readonly string[], attributes: Record<string, string>): void;
  /** Character data (and CDATA) inside the innermost open element. */
  text?(text: string, path: readonly string[]): void;
  /** An element ends; `path` still ends with its name. */
  close?(path: readonly string[]): void;
}

/**
 * Faults saxes reports but reads past with a defined result, and that the
 * documents' own decoding already handled the same way: an HTML entity such
 * as `&nbsp;` written into the XML (kept as `&nbsp;`, for the HTML decode that
 * follows) and a control character (kept, for the text cleanup to drop). Any
 * other fault ends the read.
 */
const TOLERATED = ["undefined entity.", "malformed character entity.", "disallowed character."];

/** Reads a whole document; throws on the first fault that is not tolerated, on none, or on an unclosed element. */
export function readXml(xml: string, events: XmlEvents): void {
  const parser = new SaxesParser({ position: true });
  const path: string[] = [];
  parser.on("error", (error) => {
    if (!TOLERATED.some((fault) => error.message.endsWith(`: ${fault}`))) throw error;
  });
  parser.on("opentag", (tag) => {
    path.push(tag.name);
    events.open?.(path, tag.attributes as Record<string, string>);
  });
  if (events.text) {
    const onText = (text: string): void => {
      if (path.length > 0) events.text!(text, path);
    };
    parser.on("text", onText);
    parser.on("cdata", onText);
  }
  parser.on("closetag", () => {
    events.close?.(path);
    path.pop();
  });
  parser.write(xml).close();
}
