/**
 * Short title-cased phrases (video, chapter and channel titles) and the
 * channel handles derived from them.
 */
import type { Random } from "./random.js";
import { TokenBuffer } from "./token-buffer.js";
import type { SentenceSource } from "./vocabulary.js";

// Articles, short prepositions and conjunctions stay lower-case inside a title (AP/Chicago style, simplified).
const MINOR_WORDS = new Set(["a", "an", "the", "and", "but", "or", "nor", "for", "so", "yet", "as", "at", "by", "in", "of", "off", "on", "per", "to", "up", "via"]);
// Function words a title should neither start nor end with ("Though There Was" is not a title).
const FUNCTION_WORDS = new Set([
  ...MINOR_WORDS, "i", "he", "she", "it", "we", "they", "you", "me", "him", "her", "us", "them", "his", "its", "our",
  "their", "my", "your", "this", "that", "these", "those", "there", "here", "which", "who", "whom", "what", "when",
  "where", "while", "if", "than", "then", "though", "although", "because", "with", "from", "into", "about", "is", "are",
  "was", "were", "be", "been", "being", "has", "have", "had", "do", "does", "did", "will", "would", "shall", "should",
  "can", "could", "may", "might", "must", "not", "no", "mr.", "mrs.", "also", "very", "such", "some", "any", "all",
]);
const scratch = new TokenBuffer(256);

/** Capitalizes each word except minor words after the first; leaves acronyms and inner capitals alone. */
export function titleCase(words: readonly string[]): string {
  return words
    .map((word, k) => {
      const lower = word.toLowerCase();
      if (k > 0 && k < words.length - 1 && MINOR_WORDS.has(lower)) return lower;
      return word.charAt(0).toUpperCase() + word.slice(1);
    })
    .join(" ");
}

/**
 * A title of about `minWords`-`maxWords` words: a window of a generated
 * sentence that starts and ends on a content word, punctuation dropped.
 */
export function generateTitle(source: SentenceSource, random: Random, minWords: number, maxWords: number): string {
  const { written, isWord } = source.vocabulary;
  const want = random.range(minWords, maxWords);
  let best: string[] = [];
  // A short or function-word-heavy sentence may not give enough words; try a few.
  for (let attempt = 0; attempt < 4 && best.length < minWords; attempt++) {
    scratch.clear();
    source.generateSentence(random, scratch);
    const words: string[] = [];
    for (let i = 0; i < scratch.length; i++) {
      const id = scratch.ids[i] as number;
      if (isWord[id] === 1) words.push(written[id] as string);
    }
    // Start at a random content word, take `want` words, then trim function words off the end.
    const starts = words.flatMap((word, k) => (FUNCTION_WORDS.has(word.toLowerCase()) ? [] : [k]));
    const from = starts.length > 0 ? (starts[random.int(starts.length)] as number) : 0;
    const window = words.slice(from, from + want);
    while (window.length > 1 && FUNCTION_WORDS.has((window[window.length - 1] as string).toLowerCase())) window.pop();
    if (window.length > best.length) best = window;
  }
  return titleCase(best);
}

/**
 * `@` and the title's letters and digits (diacritics removed), cut to 30
 * characters like YouTube's limit; `taken` holds lower-cased handles already
 * used, since handles are case-insensitive.
 */
export function handleFor(title: string, taken: ReadonlySet<string>): string {
  let base = title
    .normalize("NFD")
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, 26);
  if (base.length < 3) base = `${base}channel`;
  let handle = `@${base}`;
  for (let n = 2; taken.has(handle.toLowerCase()); n++) handle = `@${base}${n}`;
  return handle;
}

const CHANNEL_SUFFIXES = ["TV", "Talks", "Academy", "Studio", "Lab", "Channel", "Show", "Daily", "Explained", "Podcast", "Media", "Live"];
const PROPER_NOUN = /^[A-Z][a-z]{2,}$/;
const CONTENT_WORD = /^[a-z]{5,}$/;

/**
 * A channel name: one or two names or content words from generated
 * sentences, often with a suffix ("Fulton Academy", "Harbor Talks").
 * Proper nouns (capitalized words inside a sentence) are preferred because
 * real channel names are mostly names.
 */
export function generateChannelTitle(source: SentenceSource, random: Random): string {
  const { written } = source.vocabulary;
  const names: string[] = [];
  const others: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    scratch.clear();
    source.generateSentence(random, scratch);
    for (let i = 1; i < scratch.length; i++) {
      const word = written[scratch.ids[i] as number] as string;
      if (PROPER_NOUN.test(word)) names.push(word);
      else if (CONTENT_WORD.test(word)) others.push(word);
    }
  }
  const pool = names.length > 0 ? names : others.length > 0 ? others : ["Daily"];
  const words = [pool[random.int(pool.length)] as string];
  if (random.chance(0.35)) {
    const second = others[random.int(Math.max(1, others.length))];
    if (second !== undefined && second.toLowerCase() !== (words[0] as string).toLowerCase()) words.push(second);
  }
  if (words.length === 1 || random.chance(0.4)) words.push(CHANNEL_SUFFIXES[random.int(CHANNEL_SUFFIXES.length)] as string);
  return titleCase(words);
}
