/**
 * How a transcript's timed segments are stored (the text once, plus compact
 * timings) and read back, the face both sides import it by.
 */
export { decodeSegments, prepareTrack, type Sub } from "./segments.js";
