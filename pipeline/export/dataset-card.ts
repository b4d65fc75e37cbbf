/**
 * The dataset card (`README.md`) of an export: what the files hold, their
 * schema, counts and provenance, and what a publisher must consider. Its
 * front matter is the Hugging Face dataset card's, so the folder loads there
 * as two configurations; it names no licence, because the transcripts carry
 * none that this service could grant.
 */
import { DEMO_DATASET } from "../artifact/contract/index.js";
import { COLUMNS, TABLES, TRANSCRIPT_TEXT_SQL, type ExportCounts, type ExportFormat, type ExportManifest, type TableName } from "./dataset-schema.js";
import type { ShardFile } from "./shard-writers.js";

export interface CardFacts {
  format: ExportFormat;
  exportedAt: string;
  source: ExportManifest["source"];
  counts: ExportCounts;
  shards: Record<TableName, ShardFile[]>;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** The card, section by section. */
export function datasetCard(facts: CardFacts): string {
  return [...heading(facts), ...provenance(facts), ...countsTable(facts.counts), ...files(facts), ...schema(), ...readingIt(facts), ...LICENCE].join("\n");
}

function extensionOf(format: ExportFormat): string {
  return format === "parquet" ? "parquet" : "jsonl.gz";
}

/** The Hugging Face front matter (one configuration per table) and what the dataset is. */
function heading(facts: CardFacts): string[] {
  const extension = extensionOf(facts.format);
  return [
    "---",
    "configs:",
    ...TABLES.flatMap((table) => [`- config_name: ${table}`, `  data_files: "${table}/*.${extension}"`]),
    "---",
    "",
    `# Transcripts of YouTube videos: ${facts.source.dataset}`,
    "",
    "Captions (transcripts) of YouTube videos with their timings, and the videos' metadata, exported from an artifact set of the",
    "transcript service. Two tables: `transcripts`, one row per stored caption track, self-contained (the video's metadata",
    "repeated on every row); `videos`, every indexed video with or without a transcript, and which tracks it has. A track's",
    "text is stored once, in its `segments`: its full text is their texts joined by single spaces (see Reading it).",
    "",
  ];
}

function provenance(facts: CardFacts): string[] {
  const { source } = facts;
  return [
    "## Provenance",
    "",
    `- Exported ${facts.exportedAt} from build \`${source.buildId}\` (dataset \`${source.dataset}\`, built ${source.builtAt}),`,
    `  with ${source.liveRecords} record(s) of the service's live store that the build did not hold yet` +
      (source.liveStoreId ? ` (store \`${source.liveStoreId}\`, through #${source.liveSeq}).` : "."),
    ...(source.dataset === DEMO_DATASET
      ? [
          "- This is the service's generated demo dataset: synthetic text made from the Brown corpus, with made-up video and",
          "  channel ids. It is not YouTube content; what follows about YouTube applies to exports of real sets.",
        ]
      : []),
    "- The service fetches captions and metadata from YouTube's public pages and caption tracks: manual captions written or",
    "  uploaded by the channels, and YouTube's automatic speech-recognition captions (`isGenerated` true); a set may also hold",
    "  records imported with `build --input`. Texts are cleaned (control characters removed, whitespace folded); nothing else",
    "  is changed.",
    "- View counts are those at fetch time.",
    "",
  ];
}

function countsTable(counts: ExportCounts): string[] {
  return [
    "## Counts",
    "",
    "| | |",
    "|---|---|",
    `| channels | ${counts.channels} |`,
    `| videos | ${counts.videos} |`,
    `| videos with a transcript | ${counts.transcripts} |`,
    `| transcript tracks (rows of \`transcripts\`) | ${counts.tracks} |`,
    `| words in primary tracks | ${counts.totalWords} |`,
    "",
  ];
}

/** The format, the manifest, the order of rows, and every shard with its rows and size. */
function files(facts: CardFacts): string[] {
  return [
    "## Files",
    "",
    facts.format === "parquet"
      ? "Parquet, zstd-compressed, in shards; row groups are sized for scanning. Timestamps are UTC (`isAdjustedToUTC`), counts 64-bit integers."
      : "JSON Lines, gzip-compressed, in shards: one JSON object a line; timestamps are ISO 8601 UTC strings.",
    "`manifest.json` lists every file with its rows, bytes and SHA-256 (`npm run pipeline -- export --verify DIR` checks them).",
    "Both tables list videos in one order (most viewed first) and a video's tracks primary track first (English before other",
    "languages, manual before automatic).",
    "",
    "| file | rows | size |",
    "|---|---|---|",
    ...TABLES.flatMap((table) => facts.shards[table].map((s) => `| \`${s.name}\` | ${s.rows} | ${mb(s.bytes)} |`)),
    "",
  ];
}

/** One table of columns per table, from the schema the writers use. */
function schema(): string[] {
  const lines = ["## Schema", ""];
  for (const table of TABLES) {
    lines.push(`### \`${table}\``, "", "| column | type | description |", "|---|---|---|");
    for (const column of COLUMNS[table]) {
      lines.push(`| \`${column.name}\` | \`${column.sql}\`${column.nullable ? " (null when unknown)" : ""} | ${column.description} |`);
    }
    lines.push("");
  }
  return lines;
}

/** Reading the files with DuckDB and with pandas, the full text made from the segments. */
function readingIt(facts: CardFacts): string[] {
  const parquet = facts.format === "parquet";
  return [
    "## Reading it",
    "",
    "```sql",
    `-- DuckDB`,
    `SELECT videoId, languageCode, wordCount, ${TRANSCRIPT_TEXT_SQL} AS text`,
    `FROM read_${parquet ? "parquet" : "json"}('transcripts/*.${extensionOf(facts.format)}') LIMIT 10;`,
    "```",
    "",
    "```python",
    parquet ? "import pandas as pd" : "import glob, pandas as pd",
    parquet ? `videos = pd.read_parquet("videos")` : `videos = pd.concat(pd.read_json(f, lines=True) for f in sorted(glob.glob("videos/*.jsonl.gz")))`,
    parquet
      ? `transcripts = pd.read_parquet("transcripts")`
      : `transcripts = pd.concat(pd.read_json(f, lines=True) for f in sorted(glob.glob("transcripts/*.jsonl.gz")))`,
    `transcripts["text"] = transcripts["segments"].map(lambda segments: " ".join(s["text"] for s in segments))`,
    "```",
    "",
  ];
}

const LICENCE = [
  "## Licence and use",
  "",
  "This dataset is YouTube content. The transcripts and metadata belong to the channels that published the videos (and, for",
  "automatic captions, are generated by YouTube from their audio); they are not licensed by whoever made this export, and no",
  "licence is claimed here. Before publishing or redistributing it, a publisher must consider:",
  "",
  "- the rights of the channels in their captions and metadata, and any licence they attached to their videos;",
  "- YouTube's Terms of Service and API policies on storing and redistributing its content;",
  "- personal data: names and opinions of people speaking or mentioned in videos, and the data-protection law that applies;",
  "- that automatic captions contain recognition errors, and that view counts and metadata change after the fetch;",
  "- a way for channels to ask that their videos be removed, and removing them from later releases.",
  "",
];
