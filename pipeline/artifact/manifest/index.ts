/**
 * An artifact set's manifest and the checks of its files, the face both
 * sides import them by: writing and reading `manifest.json`, SHA-256 of the
 * files (on a worker thread for a server that must keep answering), and this
 * machine's record of the sets that passed (`verified.json`).
 */
export { hashFilesInWorker } from "./hash-worker.js";
export { ArtifactError, readManifest, sha256File, writeManifest } from "./manifest.js";
export { forgetVerified, hashSetFiles, recordVerified, verifyArtifactSet, type VerifyOutcome } from "./verified-sets.js";
