/**
 * The formats of a set's search indexes, the face both sides import them by:
 * term counts and term vectors (what ranking counts), phrase pairs, word
 * bitmaps, the FlexSearch title index, and the varint codec of their packed
 * integers. The pipeline builds them (pipeline/build/), the server reads
 * them (server/search/); their versions are the contract's.
 */
export { hasPhrasePairs, pairText, PHRASE_PAIRS_DDL, phrasePairs } from "./phrase-pairs.js";
export {
  decodeCounts,
  encodeCounts,
  TERM_COUNTS_DDL,
  TERM_COUNTS_MAX_SHARE,
  TERM_COUNTS_MIN_DF,
  TERM_COUNTS_VERSION,
} from "./term-counts.js";
export { SCAN_BYTES, scanScale, type TermVector, TermVectors } from "./term-vectors.js";
export { createTitleIndex, exportTitleIndex, importTitleIndex, type TitleIndex } from "./title-index.js";
export { VarintReader, writeVarint } from "./varint.js";
export { hasWordBitmaps, WORD_BITMAP_MIN_SHARE, WORD_BITMAPS_DDL, wordExpression } from "./word-bitmaps.js";
