/**
 * The channel list file: one channel a line, as a channel id (`UC…`), an
 * `@handle` or a channel URL, or a playlist, as its id (`PL…`) or a URL
 * with `list=`; its videos are crawled like a channel's. `#` starts a comment (whole line or trailing);
 * blank lines are ignored. Lines are checked here, without any request, so a
 * typo fails the run before it starts.
 */
import { readFile } from "node:fs/promises";
import { channelPathOf } from "../youtube/channel-resolve.js";
import { playlistIdOf } from "../youtube/index.js";
import { UsageError } from "../command/exit-codes.js";

export interface ChannelListEntry {
  /** As written (trimmed, without the comment). */
  input: string;
  /** 1-based line number, for messages. */
  line: number;
  /** Known without a request when the line is an id or a /channel/ URL. */
  channelId?: string;
  /** The line names a playlist: its id. */
  playlistId?: string;
}

/** Bad lines listed in the error; a list of thousands of bad lines is named by a count after these. */
export const MAX_PROBLEMS_SHOWN = 20;

export async function readChannelList(path: string): Promise<ChannelListEntry[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read the channel list ${path}: ${(error as NodeJS.ErrnoException).code ?? "unreadable"}`);
  }
  return parseChannelList(text, path);
}

export function parseChannelList(text: string, name = "channel list"): ChannelListEntry[] {
  const entries: ChannelListEntry[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    // A URL never contains " #", so a trailing comment needs the space; a whole-line comment starts with "#".
    const input = raw.replace(/(^|\s)#.*$/, "").trim();
    if (input === "") return;
    const line = index + 1;
    const playlistId = playlistIdOf(input);
    if (playlistId !== undefined) {
      if (seen.has(playlistId)) return;
      seen.add(playlistId);
      entries.push({ input, line, playlistId });
      return;
    }
    let target: ReturnType<typeof channelPathOf>;
    try {
      target = channelPathOf(input);
    } catch {
      problems.push(`${name}:${line}: not a channel id (UC…), @handle, channel URL or playlist (PL…, a URL with list=)`);
      return;
    }
    const key = "channelId" in target ? target.channelId : target.path.toLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    entries.push({ input, line, ...("channelId" in target ? { channelId: target.channelId } : {}) });
  });
  if (problems.length > 0) {
    const more = problems.length - MAX_PROBLEMS_SHOWN;
    throw new UsageError([...problems.slice(0, MAX_PROBLEMS_SHOWN), ...(more > 0 ? [`${name}: ${more} more bad lines not shown`] : [])].join("\n"));
  }
  if (entries.length === 0) throw new UsageError(`${name} lists no channels`);
  return entries;
}
