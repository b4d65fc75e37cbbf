/** A stand-in serving a synthetic corpus on 127.0.0.1:0, and a channel list over its channels in all three spellings. */
import { writeFileSync } from "node:fs";
import { createSyntheticCorpus, type SyntheticCorpus } from "../../../pipeline/corpus/synthetic.js";
import { startStandin, type Standin } from "../../../scripts/youtube-standin/server.js";

export interface SyntheticStandin {
  standin: Standin;
  corpus: SyntheticCorpus;
  close(): Promise<void>;
}

export async function startSyntheticStandin(options: { videos: number; channels?: number; seed?: number; port?: number }): Promise<SyntheticStandin> {
  const corpus = createSyntheticCorpus({
    seed: options.seed ?? 7,
    videos: options.videos,
    ...(options.channels ? { channels: options.channels } : {}),
    // Short transcripts keep the stand-in cheap; the pipeline's cost per video hardly depends on length.
    meanTranscriptWords: 200,
  });
  const standin = await startStandin({ corpus, port: options.port ?? 0 });
  return { standin, corpus, close: () => standin.close() };
}

/** A source of ids of videos with an English transcript, in corpus order: a new one on each call. */
export function englishVideoIds(corpus: SyntheticCorpus): () => string {
  let next = 0;
  return () => {
    for (;;) {
      const video = corpus.videoAt(next++);
      if (video.transcripts.some((t) => t.languageCode === "en")) return video.videoId;
    }
  };
}

/** Channel ids, @handles and channel URLs in turn, with a comment and a blank line. */
export function channelListText(corpus: SyntheticCorpus, count = corpus.channels.length): string {
  const lines = ["# channels for the pipeline test", ""];
  corpus.channels.slice(0, count).forEach((channel, i) => {
    if (i % 3 === 0) lines.push(channel.channelId);
    else if (i % 3 === 1) lines.push(`${channel.handle}   # by handle`);
    else lines.push(`https://www.youtube.com/${channel.handle}/videos`);
  });
  return `${lines.join("\n")}\n`;
}

export function writeChannelList(path: string, corpus: SyntheticCorpus, count?: number): string {
  writeFileSync(path, channelListText(corpus, count));
  return path;
}
