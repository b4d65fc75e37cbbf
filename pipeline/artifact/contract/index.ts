/**
 * The artifact contract, the face the server and the pipeline import it by:
 * the records (VideoRecord and its parts), the manifest's shape, the file
 * names, the schema version, the index options and their hash, the
 * database's DDL, and the two rules a lookup applies to a record: how
 * languages compare (language.ts) and which kind of track is asked for
 * (track-kind.ts).
 */
export {
  ARTIFACT_FILES,
  ARTIFACT_MAPPED_BYTES,
  CHANNEL_ID_PATTERN,
  channelToken,
  ChapterRecord,
  DATABASE_DDL,
  DEMO_DATASET,
  Manifest,
  OPTIONS_HASH,
  PHRASE_PAIRS_VERSION,
  PRIMARY_TRACK_ORDER,
  SCHEMA_VERSION,
  SegmentRecord,
  TERM_STATS_DDL,
  TITLE_INDEX_OPTIONS,
  TRANSCRIPT_FTS_DDL,
  TranscriptRecord,
  VIDEO_ID_PATTERN,
  VideoRecord,
  WORD_BITMAPS_VERSION,
} from "./contract.js";
export { languageKey, sameLanguage } from "./language.js";
export { isOfKind, TRACK_KINDS, type TrackKind } from "./track-kind.js";
