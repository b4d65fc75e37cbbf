/**
 * The live store's records as the server and the pipeline agree on them, the
 * face both sides import them by: `live.db` (live-records.ts) and the shared
 * store in PostgreSQL (pg-live-records.ts). docs/live-store.md tells the
 * whole life of a record.
 */
export {
  hasLiveStoreSchema,
  LIVE_META,
  LIVE_STORE_DDL,
  type LiveRecord,
  type LiveStoreSnapshot,
  mergeRecords,
  openLiveSnapshot,
  trimmableThrough,
} from "./live-records.js";
export {
  connectSharedLiveStore,
  ensureSharedLiveStore,
  insertSharedRecord,
  LIVE_CHANNEL_NAME,
  sharedMaxSeq,
  sharedRecords,
  trimSharedRecords,
} from "./pg-live-records.js";
