/**
 * The FlexSearch index of video titles and channel names: created the same
 * way at build time (pipeline) and load time (server), from the options in
 * the contract, so the two can never disagree.
 */
import { Charset, Document } from "flexsearch";
import { TITLE_INDEX_OPTIONS } from "../contract/index.js";

export interface TitleDoc {
  /** `videos.id`, the popularity rank. */
  id: number;
  title: string;
  channel: string;
  [key: string]: string | number;
}

export type TitleIndex = Document<TitleDoc>;

export function createTitleIndex(): TitleIndex {
  const field = (name: string) => ({
    field: name,
    tokenize: TITLE_INDEX_OPTIONS.tokenize,
    encoder: Charset[TITLE_INDEX_OPTIONS.encoder],
    resolution: TITLE_INDEX_OPTIONS.resolution,
  });
  return new Document<TitleDoc>({
    document: { id: "id", index: [field("title"), field("channel")] },
  });
}

/** Serializes the index as one JSON object of FlexSearch's export chunks. */
export async function exportTitleIndex(index: TitleIndex): Promise<string> {
  const chunks: Record<string, string> = {};
  await index.export((key: string, data: string) => {
    chunks[key] = data;
  });
  return JSON.stringify(chunks);
}

export function importTitleIndex(json: string): TitleIndex {
  const index = createTitleIndex();
  const chunks = JSON.parse(json) as Record<string, string>;
  for (const [key, data] of Object.entries(chunks)) index.import(key, data);
  return index;
}
