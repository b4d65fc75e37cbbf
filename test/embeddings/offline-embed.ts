/** Run as a child process with no network (builtin-embedder.test.ts): embeds three sentences with the built-in embedder and prints their similarities. */
import { BuiltinEmbedder } from "../../pipeline/embeddings/builtin-embedder.js";
import { cosine } from "../../pipeline/artifact/vectors/index.js";

const embedder = new BuiltinEmbedder();
const [query, paraphrase, other] = await embedder.embed(["how to repair a dripping faucet", "fixing a leaky tap", "the stock market fell sharply today"]);
process.stdout.write(JSON.stringify({ dimensions: query!.length, paraphrase: cosine(query!, paraphrase!), other: cosine(query!, other!) }) + "\n");
await embedder.close();
