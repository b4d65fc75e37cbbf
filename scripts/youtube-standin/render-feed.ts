/** A channel's Atom feed: its newest 15 uploads with exact dates and view counts. */
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { videoWithoutText, type StandinChannel, type StandinCorpus } from "./corpus.js";
import { escapeXml } from "./render-timedtext.js";

export const FEED_SIZE = 15;

/** The listing is newest first (the corpus contract): only the feed's own videos are looked up, whatever the channel's size. */
export function renderFeed(corpus: StandinCorpus, channel: StandinChannel): string {
  const videos = channel.videoIds
    .slice(0, FEED_SIZE)
    .map((id) => videoWithoutText(corpus, id))
    .filter((v): v is VideoRecord => v !== undefined);
  const atomDate = (iso: string) => new Date(iso).toISOString().replace(/\.\d{3}Z$/, "+00:00");
  const entries = videos.map(
    (v) => ` <entry>
  <id>yt:video:${v.videoId}</id>
  <yt:videoId>${v.videoId}</yt:videoId>
  <yt:channelId>${channel.channelId}</yt:channelId>
  <title>${escapeXml(v.title)}</title>
  <link rel="alternate" href="https://www.youtube.com/watch?v=${v.videoId}"/>
  <author>
   <name>${escapeXml(channel.title)}</name>
   <uri>https://www.youtube.com/channel/${channel.channelId}</uri>
  </author>
  <published>${atomDate(v.publishedAt)}</published>
  <updated>${atomDate(v.publishedAt)}</updated>
  <media:group>
   <media:title>${escapeXml(v.title)}</media:title>
   <media:content url="https://www.youtube.com/v/${v.videoId}?version=3" type="application/x-shockwave-flash" width="640" height="390"/>
   <media:thumbnail url="https://i1.ytimg.com/vi/${v.videoId}/hqdefault.jpg" width="480" height="360"/>
   <media:description>${escapeXml(v.description ?? "")}</media:description>
   <media:community>
    <media:starRating count="0" average="0.00" min="1" max="5"/>
    <media:statistics views="${v.viewCount}"/>
   </media:community>
  </media:group>
 </entry>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns:media="http://search.yahoo.com/mrss/" xmlns="http://www.w3.org/2005/Atom">
 <link rel="self" href="https://www.youtube.com/feeds/videos.xml?channel_id=${channel.channelId}"/>
 <id>yt:channel:${channel.channelId.slice(2)}</id>
 <yt:channelId>${channel.channelId.slice(2)}</yt:channelId>
 <title>${escapeXml(channel.title)}</title>
 <link rel="alternate" href="https://www.youtube.com/channel/${channel.channelId}"/>
 <author>
  <name>${escapeXml(channel.title)}</name>
  <uri>https://www.youtube.com/channel/${channel.channelId}</uri>
 </author>
${entries.join("\n")}
</feed>
`;
}
