/**
 * The vectors of search by meaning, the face the build and the server import
 * them by: how a transcript is cut into chunks (chunks.ts), and the vectors
 * file, its tables, quantization and the embedder that made it (vectors.ts).
 */
export { chunkHash, chunkSegments, CHUNK_MAX_SECONDS, CHUNK_MAX_WORDS, CHUNK_SECONDS, type Chunk, type ChunkSegment } from "./chunks.js";
export {
  BUILTIN_EMBEDDER,
  CARRIED_VECTORS_VERSIONS,
  cosine,
  describeEmbedder,
  dotRow,
  EmbedderIdentity,
  int8Vector,
  listHolding,
  loadVectorExtension,
  quantizeInt8,
  readLists,
  readVectorsMeta,
  sameEmbedder,
  STAGED_CHUNKS_DDL,
  unitVector,
  VECTORS_FILE,
  VECTORS_VERSION,
  vectorBytes,
  VECTORS_DDL,
  VECTORS_INDEXES_DDL,
  writeVectorsMeta,
  type StoredLists,
  type VectorsMeta,
} from "./vectors.js";
