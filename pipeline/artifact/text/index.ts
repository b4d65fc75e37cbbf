/**
 * Text processing that index time and query time share, the face both sides
 * import it by: the tokenizer that mirrors FTS5's (text.ts) and a text's
 * folded bytes, in which ranking counts and snippets find whole words
 * (folded-bytes.ts).
 */
export { ASCII_TERM, foldedBytes, isTokenUnitAt, nextWholeWord } from "./folded-bytes.js";
export {
  countWords,
  foldedTokens,
  foldKeepingOffsets,
  foldTerm,
  foldText,
  foldWhitespace,
  stripControlCharacters,
  TOKEN,
  TOKEN_CHARACTER,
  tokenize,
} from "./text.js";
