/** The error of a call that found no exit free within its longest wait: it was never sent, so retrying at once is pointless. */
import { YouTubeError } from "../errors.js";

export class ExitsResting extends YouTubeError {}
