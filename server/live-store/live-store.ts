// Over 300 lines: one class owns the store's database and what it mirrors in memory, so every write's commit-then-update order reads in one place.
/**
 * The live store: transcripts fetched from YouTube, in `<DATA_DIR>/live.db`,
 * a database of the artifact schema plus the records themselves (for the
 * next build to fold in). A record leaves it only once every artifact set the
 * server may serve holds it (see docs/live-store.md).
 *
 * Every write is one transaction with synchronous=FULL in WAL mode: a crash
 * leaves either the whole record or none of it, and what is held in memory
 * (counts, the title index) changes only after the commit. The published
 * artifact set is never written to.
 *
 * Several processes may share one store (WORKERS > 1): every write is an
 * IMMEDIATE transaction that reads the counts it adds to from the database,
 * and `refresh()` brings one process's memory (counts, titles, generation) up
 * to what the others committed, cheaply when nothing changed (`PRAGMA data_version`).
 */
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { PRIMARY_TRACK_ORDER, type TranscriptRecord, VideoRecord } from "../../pipeline/artifact/contract/index.js";
import { hasLiveStoreSchema, LIVE_META, LIVE_STORE_DDL, mergeRecords } from "../../pipeline/artifact/live-store/index.js";
import { prepareTrack } from "../../pipeline/artifact/segments/index.js";
import { createTitleIndex, type TitleIndex } from "../../pipeline/artifact/search-index/index.js";
import type { ChannelItem, ChannelVideoItem } from "../data/catalog.js";
import { toChannelVideoItem, type ChannelVideoRow } from "../data/transcript-tables.js";
import { whileBusy } from "../data/while-busy.js";


export interface LiveCounts {
  /** Videos not in the artifact set. */
  videos: number;
  /** Videos whose only transcript is here. */
  transcripts: number;
  totalWords: number;
  /** Channels not in the artifact set. */
  channels: number;
}

export interface Placement {
  videoInArtifacts: boolean;
  /** The artifact set already has a transcript of this video: it stays the searched one. */
  artifactHasTranscript: boolean;
  channelInArtifacts: boolean;
}

export { mergeRecords };

export interface PutOptions extends Placement {
  fetchedAt?: Date;
  /** Keep this sequence number (replaying a stored record); default: the next one. */
  seq?: number;
  /** Not yet in the shared store (DATABASE_URL, PostgreSQL unreachable): queue it there too, in the same transaction. */
  pending?: boolean;
}

/** A record stored here that the shared store (PostgreSQL) does not have yet. */
export interface PendingRecord {
  /** Its place in the queue; a newer fetch of the same video replaces the row (and the id). */
  id: number;
  record: VideoRecord;
  fetchedAt: Date;
}

/**
 * The queue of records for the shared store: stored here (served, searched)
 * but not yet committed to PostgreSQL. A row leaves it only once PostgreSQL
 * has the record; until then reconcile keeps the record whatever the
 * watermarks say (they count the shared store's numbers, not this queue's).
 */
const PENDING_DDL = `
CREATE TABLE IF NOT EXISTS pending_shared (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  video_id TEXT NOT NULL UNIQUE,
  record TEXT NOT NULL,
  fetched_at TEXT NOT NULL
);
`;

export class LiveStore {
  readonly db: Database.Database;
  /** Titles and channel names of the stored videos, for the same title boost as the artifact set's index. */
  readonly titles: TitleIndex = createTitleIndex();
  /** Random id of this store (manifest `liveStoreId` of the sets built from it); the shared store's, once adopted. */
  #storeId: string;
  #generation = 0;
  #counts: LiveCounts;
  /** Highest sequence number whose title this process's memory holds. */
  #seenSeq = 0;
  /** The store's reconcile epoch when memory was last loaded whole. */
  #epoch = "";
  /** `PRAGMA data_version` when memory last matched the database. */
  #dataVersion = 0;
  readonly #sql;

  static open(path: string): LiveStore {
    const db = new Database(path);
    try {
      // The wait first: several workers may open a new store at once (WORKERS > 1).
      db.pragma("busy_timeout = 5000");
      // Switching a new file to WAL can meet another process's lock without the busy wait applying: tried again.
      whileBusy(() => db.pragma("journal_mode = WAL"));
      db.pragma("synchronous = FULL");
      // Checked and made in one IMMEDIATE transaction, so of two processes opening a new store one makes it.
      db.transaction(() => {
        if (!hasLiveStoreSchema(db)) db.exec(LIVE_STORE_DDL);
        db.exec(PENDING_DDL);
      }).immediate();
      // A store made before stores had ids gets one now; its sequence continues above what it holds.
      db.transaction(() => {
        const put = db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)");
        put.run(LIVE_META.storeId, randomUUID());
        put.run(LIVE_META.nextSeq, String((db.prepare("SELECT coalesce(max(seq), 0) + 1 FROM live_records").pluck().get() as number)));
      }).immediate();
      return new LiveStore(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  private constructor(db: Database.Database) {
    this.db = db;
    this.#sql = {
      channel: db.prepare(
        `INSERT INTO channels (channel_id, title, handle) VALUES (?, ?, ?)
         ON CONFLICT (channel_id) DO UPDATE SET title = excluded.title, handle = coalesce(excluded.handle, handle)
         RETURNING id`,
      ).pluck(),
      videoByKey: db.prepare("SELECT id, transcript FROM videos WHERE video_id = ?"),
      insertVideo: db.prepare(
        `INSERT INTO videos (video_id, channel, title, view_count, published_at, thumbnail, length_seconds,
                             description, chapters, keywords, category)
         VALUES (@videoId, @channel, @title, @viewCount, @publishedAt, @thumbnail, @lengthSeconds,
                 @description, @chapters, @keywords, @category) RETURNING id`,
      ).pluck(),
      updateVideo: db.prepare(
        `UPDATE videos SET channel = @channel, title = @title, view_count = @viewCount, published_at = @publishedAt,
           thumbnail = @thumbnail, length_seconds = @lengthSeconds,
           description = coalesce(@description, description), chapters = coalesce(@chapters, chapters),
           keywords = coalesce(@keywords, keywords), category = coalesce(@category, category)
         WHERE id = @id`,
      ),
      putTrack: db.prepare(
        `INSERT INTO transcripts (video, language_code, language, is_generated, word_count, duration, script, timings)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (video, language_code, is_generated) DO UPDATE SET language = excluded.language,
           word_count = excluded.word_count, duration = excluded.duration, script = excluded.script, timings = excluded.timings`,
      ),
      primary: db.prepare(`SELECT t.id FROM transcripts t WHERE t.video = ? ORDER BY ${PRIMARY_TRACK_ORDER} LIMIT 1`).pluck(),
      setPrimary: db.prepare("UPDATE videos SET transcript = ? WHERE id = ?"),
      ftsContent: db.prepare("SELECT script, chan FROM fts_content WHERE id = ?"),
      ftsDelete: db.prepare("INSERT INTO transcript_fts (transcript_fts, rowid, script, chan) VALUES ('delete', ?, ?, ?)"),
      ftsInsert: db.prepare("INSERT INTO transcript_fts (rowid, script, chan) SELECT id, script, chan FROM fts_content WHERE id = ?"),
      wordsOf: db.prepare("SELECT t.word_count FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?").pluck(),
      channelCounts: db.prepare(
        `UPDATE channels SET video_count = (SELECT count(*) FROM videos v WHERE v.channel = channels.id),
           transcript_count = (SELECT count(*) FROM videos v WHERE v.channel = channels.id AND v.transcript IS NOT NULL)
         WHERE id = ?`,
      ),
      record: db.prepare("SELECT record, in_artifacts, searchable, seq FROM live_records WHERE video_id = ?"),
      putRecord: db.prepare(
        `INSERT INTO live_records (video_id, record, fetched_at, seq, in_artifacts, searchable)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (video_id) DO UPDATE SET record = excluded.record, fetched_at = excluded.fetched_at,
           seq = excluded.seq, in_artifacts = excluded.in_artifacts, searchable = excluded.searchable`,
      ),
      getSeq: db.prepare(`SELECT CAST(value AS INTEGER) FROM meta WHERE key = '${LIVE_META.nextSeq}'`).pluck(),
      setSeq: db.prepare(`UPDATE meta SET value = ? WHERE key = '${LIVE_META.nextSeq}'`),
      putMeta: db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('${LIVE_META.counts}', ?)`),
      getMeta: db.prepare(`SELECT value FROM meta WHERE key = '${LIVE_META.counts}'`).pluck(),
      getEpoch: db.prepare(`SELECT value FROM meta WHERE key = '${LIVE_META.epoch}'`).pluck(),
      putEpoch: db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('${LIVE_META.epoch}', ?)`),
      titlesAfter: db.prepare(
        `SELECT v.id, v.title, c.title AS channel, r.seq FROM live_records r JOIN videos v ON v.video_id = r.video_id
         JOIN channels c ON c.id = v.channel WHERE r.seq > ? ORDER BY r.seq`,
      ),
      records: db.prepare("SELECT record FROM live_records WHERE seq > ? ORDER BY seq").pluck(),
      stored: db.prepare(
        `SELECT record, fetched_at AS fetchedAt, seq FROM live_records
         WHERE seq > ? OR video_id IN (SELECT video_id FROM pending_shared) ORDER BY seq`,
      ),
      putPending: db.prepare(
        `INSERT INTO pending_shared (video_id, record, fetched_at) VALUES (?, ?, ?)
         ON CONFLICT (video_id) DO UPDATE SET id = (SELECT max(id) + 1 FROM pending_shared), record = excluded.record, fetched_at = excluded.fetched_at`,
      ),
      pending: db.prepare("SELECT id, record, fetched_at AS fetchedAt FROM pending_shared ORDER BY id LIMIT ?"),
      pendingCount: db.prepare("SELECT count(*) FROM pending_shared").pluck(),
      settlePending: db.prepare("DELETE FROM pending_shared WHERE id = ?"),
      storeId: db.prepare(`SELECT value FROM meta WHERE key = '${LIVE_META.storeId}'`).pluck(),
      maxSeq: db.prepare("SELECT coalesce(max(seq), 0) FROM live_records").pluck(),
      newVideosOfChannel: db.prepare(
        `SELECT v.video_id AS videoId, v.title, v.view_count AS viewCount, v.published_at AS publishedAt,
                t.language_code AS languageCode, t.word_count AS wordCount, t.is_generated AS isGenerated
         FROM channels c JOIN videos v ON v.channel = c.id JOIN live_records r ON r.video_id = v.video_id
         LEFT JOIN transcripts t ON t.id = v.transcript
         WHERE c.channel_id = ? AND r.in_artifacts = 0 ORDER BY v.published_at DESC, v.id LIMIT ?`,
      ),
      channelTitle: db.prepare("SELECT title FROM channels WHERE channel_id = ?").pluck(),
      // What the store adds to each channel: videos the artifact set lacks, and transcripts it serves and counts (as counts() does).
      channelAdditions: db.prepare(
        `SELECT c.channel_id AS channelId, c.title, sum(r.in_artifacts = 0) AS videoCount, sum(r.searchable) AS transcriptCount
         FROM live_records r JOIN videos v ON v.video_id = r.video_id JOIN channels c ON c.id = v.channel GROUP BY c.id`,
      ),
      newChannel: db.prepare("SELECT count(*) FROM live_records WHERE in_artifacts = 0 AND json_extract(record, '$.channelId') = ?").pluck(),
    };
    this.#storeId = this.#sql.storeId.get() as string;
    this.#counts = this.#reloadMemory();
  }

  /** Reads the counts and the title index from the database, which is their source of truth. */
  #reloadMemory(): LiveCounts {
    return this.db.transaction(() => {
      this.titles.clear();
      for (const row of this.db.prepare("SELECT v.id, v.title, c.title AS channel FROM videos v JOIN channels c ON c.id = v.channel").iterate()) {
        this.titles.add(row as { id: number; title: string; channel: string });
      }
      this.#seenSeq = this.maxSeq();
      this.#epoch = (this.#sql.getEpoch.get() as string | undefined) ?? "";
      this.#dataVersion = this.#readDataVersion();
      return this.#storedCounts();
    })();
  }

  #storedCounts(): LiveCounts {
    const stored = this.#sql.getMeta.get() as string | undefined;
    return stored ? (JSON.parse(stored) as LiveCounts) : { videos: 0, transcripts: 0, totalWords: 0, channels: 0 };
  }

  #readDataVersion(): number {
    return this.db.pragma("data_version", { simple: true }) as number;
  }

  /**
   * Brings memory up to what other processes committed to the store since it
   * was last read: the new records' titles, the counts, and a new generation
   * (so search caches drop). One pragma when nothing changed. Returns whether
   * anything did.
   */
  refresh(): boolean {
    if (!this.db.open || this.#readDataVersion() === this.#dataVersion) return false;
    this.db.transaction(() => {
      this.#dataVersion = this.#readDataVersion();
      if (((this.#sql.getEpoch.get() as string | undefined) ?? "") !== this.#epoch) {
        this.#counts = this.#reloadMemory();
        return;
      }
      for (const row of this.#sql.titlesAfter.iterate(this.#seenSeq)) {
        const { seq, ...title } = row as { id: number; title: string; channel: string; seq: number };
        this.titles.update(title);
        this.#seenSeq = Math.max(this.#seenSeq, seq);
      }
      this.#counts = this.#storedCounts();
    })();
    this.#generation++;
    return true;
  }

  /**
   * Stores a fetched record (merged with what is stored for the video) in one
   * durable transaction; counts and titles in memory change after its commit.
   */
  put(input: VideoRecord, options: PutOptions): void {
    const record = VideoRecord.parse(input);
    // IMMEDIATE, and the counts read inside it: another process may share the store (WORKERS > 1).
    const change = this.db.transaction(() => this.#write(record, options, this.#storedCounts())).immediate();
    this.#counts = change.counts;
    this.titles.update(change.title);
    this.#seenSeq = Math.max(this.#seenSeq, change.seq);
    this.#generation++;
  }

  /** The SQL of `put`, inside the caller's transaction; returns what memory should become once it commits. */
  #write(record: VideoRecord, options: PutOptions, before: LiveCounts): { counts: LiveCounts; seq: number; title: { id: number; title: string; channel: string } } {
    const previous = this.#sql.record.get(record.videoId) as { record: string; in_artifacts: number; searchable: number } | undefined;
    const merged = previous ? mergeRecords(JSON.parse(previous.record) as VideoRecord, record) : record;
    const channelId = this.#sql.channel.get(merged.channelId, merged.channelTitle, merged.channelHandle ?? null) as number;
    const known = this.#sql.videoByKey.get(merged.videoId) as { id: number; transcript: number | null } | undefined;
    const fields = {
      videoId: merged.videoId,
      channel: channelId,
      title: merged.title,
      viewCount: merged.viewCount,
      publishedAt: new Date(merged.publishedAt).toISOString(),
      thumbnail: merged.thumbnail,
      lengthSeconds: merged.lengthSeconds,
      description: merged.description ?? null,
      chapters: merged.chapters ? JSON.stringify(merged.chapters) : null,
      keywords: merged.keywords ? JSON.stringify(merged.keywords) : null,
      category: merged.category ?? null,
    };
    const wasSearchable = previous?.searchable === 1;
    const oldWords = wasSearchable && known ? ((this.#sql.wordsOf.get(known.id) as number | undefined) ?? 0) : 0;
    if (wasSearchable && known) {
      // External-content FTS5 forgets a row only when told its old content.
      const old = this.#sql.ftsContent.get(known.id) as { script: string; chan: string } | undefined;
      if (old) this.#sql.ftsDelete.run(known.id, old.script, old.chan);
    }
    let id: number;
    if (known) {
      id = known.id;
      this.#sql.updateVideo.run({ ...fields, id });
    } else {
      id = this.#sql.insertVideo.get(fields) as number;
    }
    for (const track of merged.transcripts) this.#putTrack(id, track);
    this.#sql.setPrimary.run((this.#sql.primary.get(id) as number | undefined) ?? null, id);
    const searchable = !options.artifactHasTranscript && merged.transcripts.length > 0;
    if (searchable) this.#sql.ftsInsert.run(id);
    this.#sql.channelCounts.run(channelId);
    const channelAlreadyCounted = !options.channelInArtifacts && (this.#sql.newChannel.get(merged.channelId) as number) > 0;
    // Sequence numbers only grow, across publishes and restarts: a number is never given to two records.
    const next = this.#sql.getSeq.get() as number;
    const seq = options.seq ?? next;
    if (seq >= next) this.#sql.setSeq.run(String(seq + 1));
    const fetchedAt = (options.fetchedAt ?? new Date()).toISOString();
    this.#sql.putRecord.run(merged.videoId, JSON.stringify(merged), fetchedAt, seq, options.videoInArtifacts ? 1 : 0, searchable ? 1 : 0);
    if (options.pending === true) this.#sql.putPending.run(merged.videoId, JSON.stringify(merged), fetchedAt);
    const counts = { ...before };
    if (!previous && !options.videoInArtifacts) counts.videos++;
    if (!options.channelInArtifacts && !channelAlreadyCounted) counts.channels++;
    if (searchable && !wasSearchable) counts.transcripts++;
    if (!searchable && wasSearchable) counts.transcripts--;
    counts.totalWords += (searchable ? ((this.#sql.wordsOf.get(id) as number | undefined) ?? 0) : 0) - oldWords;
    this.#sql.putMeta.run(JSON.stringify(counts));
    return { counts, seq, title: { id, title: merged.title, channel: merged.channelTitle } };
  }

  /** Videos of a channel that the artifact set does not have, newest first. */
  newChannelVideos(channelId: string, limit: number): { channelTitle: string | undefined; items: ChannelVideoItem[] } {
    const rows = this.#sql.newVideosOfChannel.all(channelId, limit) as ChannelVideoRow[];
    return {
      channelTitle: this.#sql.channelTitle.get(channelId) as string | undefined,
      items: rows.map(toChannelVideoItem),
    };
  }

  /** Per channel of the stored records, what they add to the artifact set's counts (see `counts`). */
  channelAdditions(): ChannelItem[] {
    return this.#sql.channelAdditions.all() as ChannelItem[];
  }

  counts(): LiveCounts {
    return this.#counts;
  }

  /** Changes with every write (search caches key on it). */
  generation(): number {
    return this.#generation;
  }

  /** Stored records in write order, those written after `afterSeq` (for the next build). */
  *records(afterSeq = 0): IterableIterator<VideoRecord> {
    for (const raw of this.#sql.records.iterate(afterSeq)) yield JSON.parse(raw as string) as VideoRecord;
  }

  /**
   * Files every record again against a newly opened artifact set (`place`
   * tells where each video stands there), keeping sequence numbers and fetch
   * times; records up to `trimThrough` leave the store, because every set the
   * server may serve holds them (the caller's guarantee: see
   * `trimmableThrough`). One transaction: a crash or a failed commit leaves
   * the old state, on disk and in memory.
   */
  reconcile(trimThrough: number, place: (record: VideoRecord) => Placement): void {
    try {
      // Read inside the (IMMEDIATE) transaction: a record another process commits meanwhile is not dropped.
      this.db.transaction(() => {
        const kept = (this.#sql.stored.all(trimThrough) as { record: string; fetchedAt: string; seq: number }[]).map((row) => ({
          record: JSON.parse(row.record) as VideoRecord,
          fetchedAt: new Date(row.fetchedAt),
          seq: row.seq,
        }));
        this.db.exec(`
          INSERT INTO transcript_fts (transcript_fts) VALUES ('delete-all');
          DELETE FROM live_records; DELETE FROM transcripts; DELETE FROM videos; DELETE FROM channels;
        `);
        let counts: LiveCounts = { videos: 0, transcripts: 0, totalWords: 0, channels: 0 };
        this.#sql.putMeta.run(JSON.stringify(counts));
        for (const { record, fetchedAt, seq } of kept) counts = this.#write(record, { ...place(record), fetchedAt, seq }, counts).counts;
        this.#sql.putEpoch.run(randomUUID());
      }).immediate();
    } finally {
      this.#counts = this.#reloadMemory();
      this.#generation++;
    }
  }

  get storeId(): string {
    return this.#storeId;
  }

  /** The sequence number of the record held for `videoId`, if any. */
  heldSeq(videoId: string): number | undefined {
    return (this.#sql.record.get(videoId) as { seq?: number } | undefined)?.seq;
  }

  /**
   * Makes this store a mirror of the shared store `storeId` (DATABASE_URL):
   * its records leave it and it takes that id, so the shared store's sequence
   * numbers and the manifests' watermarks apply here unchanged. The caller has
   * copied every record to the shared store first. One IMMEDIATE transaction;
   * a store that has the id already (another worker adopted it) is left alone.
   */
  adopt(storeId: string): void {
    if (this.#storeId === storeId) return;
    this.db.transaction(() => {
      if ((this.#sql.storeId.get() as string) === storeId) return;
      this.db.exec(`
        INSERT INTO transcript_fts (transcript_fts) VALUES ('delete-all');
        DELETE FROM live_records; DELETE FROM transcripts; DELETE FROM videos; DELETE FROM channels;
        DELETE FROM pending_shared;
      `);
      this.#sql.putMeta.run(JSON.stringify({ videos: 0, transcripts: 0, totalWords: 0, channels: 0 }));
      this.db.prepare("UPDATE meta SET value = ? WHERE key = ?").run(storeId, LIVE_META.storeId);
      this.#sql.setSeq.run("1");
      this.#sql.putEpoch.run(randomUUID());
    }).immediate();
    this.#storeId = storeId;
    this.#counts = this.#reloadMemory();
    this.#generation++;
  }

  /** The oldest `limit` records waiting for the shared store. */
  pending(limit: number): PendingRecord[] {
    return (this.#sql.pending.all(limit) as { id: number; record: string; fetchedAt: string }[]).map((row) => ({
      id: row.id,
      record: JSON.parse(row.record) as VideoRecord,
      fetchedAt: new Date(row.fetchedAt),
    }));
  }

  /** Records waiting for the shared store. */
  pendingCount(): number {
    return this.#sql.pendingCount.get() as number;
  }

  /** The shared store has pending row `id` now (a row replaced meanwhile keeps waiting: its id changed). */
  settlePending(id: number): void {
    this.#sql.settlePending.run(id);
  }

  maxSeq(): number {
    return this.#sql.maxSeq.get() as number;
  }

  /** The number the next record will get. */
  nextSeq(): number {
    return this.#sql.getSeq.get() as number;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  #putTrack(video: number, track: TranscriptRecord): void {
    const stored = prepareTrack(track);
    if (!stored) return;
    this.#sql.putTrack.run(
      video,
      track.languageCode,
      track.language,
      track.isGenerated ? 1 : 0,
      stored.wordCount,
      stored.duration,
      stored.script,
      stored.timings,
    );
  }
}
