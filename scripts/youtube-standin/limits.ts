/**
 * YouTube's limits, played by the stand-in: each client address may send
 * `budget` requests per sliding `windowMs`; one more and the address is
 * blocked for `coolDownMs`, and every request it sends while blocked is
 * answered with a block and starts the cool-down again. The block answers
 * are the shapes YouTube uses (block-answers.ts). Every request time and
 * every block announced is recorded per address, so a test or the bench can
 * check that a client sent nothing during a cool-down it was told about.
 */
import type { Endpoint } from "./faults.js";

/** How a blocked address is answered (see block-answers.ts for each shape). */
export const BLOCK_ANSWERS = ["rate-limit", "unusual-traffic", "bot-check", "captcha", "consent", "empty-caption", "by-endpoint"] as const;
export type BlockAnswer = (typeof BLOCK_ANSWERS)[number];

export interface LimitsConfig {
  /** Requests one client address may send per window. */
  budget: number;
  /** The sliding window, in ms. */
  windowMs: number;
  /** How long an address stays blocked after its last refused request, in ms. */
  coolDownMs: number;
  /** The block answer; default `rate-limit` (HTTP 429 with Retry-After). */
  answer?: BlockAnswer;
}

/** One block the stand-in answered: when, on which endpoint, and until when the address is blocked. */
export interface BlockRecord {
  at: number;
  endpoint: Endpoint;
  /** The answer's shape (never `by-endpoint`: the one it chose). */
  answer: Exclude<BlockAnswer, "by-endpoint">;
  /** End of the cool-down this answer started. */
  until: number;
  /** The Retry-After it announced, in seconds, when it announced one. */
  retryAfterSeconds?: number;
}

export interface AddressRecord {
  /** Arrival time of every request from this address, in order. */
  requests: number[];
  blocks: BlockRecord[];
}

export interface AddressReport {
  requests: number;
  /** Requests answered with a block. */
  blocked: number;
  /** Requests that arrived after a block announced a Retry-After and before it ran out. */
  duringAnnouncedCoolDown: number;
  blocks: BlockRecord[];
}

export interface LimitsReport {
  config: LimitsConfig | null;
  addresses: Record<string, AddressReport>;
  totals: { requests: number; blocked: number; duringAnnouncedCoolDown: number };
}

/** What to do with one request: serve it, or answer with a block. */
export type Admission = { blocked: false } | { blocked: true; block: BlockRecord };

export class LimitsState {
  #config: LimitsConfig | null = null;
  readonly #addresses = new Map<string, AddressRecord & { admitted: number[]; blockedUntil: number }>();

  get config(): LimitsConfig | null {
    return this.#config;
  }

  /** Turns the limits on (or, with null, off); the record is kept until `reset`. */
  set(config: LimitsConfig | null): void {
    if (config) validate(config);
    this.#config = config;
  }

  reset(): void {
    this.#addresses.clear();
  }

  /** Records a request from `address` at `now` and says whether it is served or blocked. */
  admit(address: string, endpoint: Endpoint, now: number): Admission {
    const config = this.#config;
    if (!config) return { blocked: false };
    let record = this.#addresses.get(address);
    if (!record) {
      record = { requests: [], blocks: [], admitted: [], blockedUntil: 0 };
      this.#addresses.set(address, record);
    }
    record.requests.push(now);
    while (record.admitted.length > 0 && record.admitted[0]! <= now - config.windowMs) record.admitted.shift();
    if (now >= record.blockedUntil && record.admitted.length < config.budget) {
      record.admitted.push(now);
      return { blocked: false };
    }
    // Over budget, or still cooling: (re)start the cool-down from this request.
    record.blockedUntil = now + config.coolDownMs;
    const answer = answerFor(config.answer ?? "rate-limit", endpoint);
    const block: BlockRecord = { at: now, endpoint, answer, until: record.blockedUntil };
    if (answer === "rate-limit") block.retryAfterSeconds = Math.ceil(config.coolDownMs / 1000);
    record.blocks.push(block);
    return { blocked: true, block };
  }

  report(): LimitsReport {
    const addresses: Record<string, AddressReport> = {};
    const totals = { requests: 0, blocked: 0, duringAnnouncedCoolDown: 0 };
    for (const [address, record] of this.#addresses) {
      const announced = record.blocks.filter((b) => b.retryAfterSeconds !== undefined);
      const during = record.requests.filter((t) => announced.some((b) => t > b.at && t < b.at + b.retryAfterSeconds! * 1000)).length;
      addresses[address] = { requests: record.requests.length, blocked: record.blocks.length, duringAnnouncedCoolDown: during, blocks: [...record.blocks] };
      totals.requests += record.requests.length;
      totals.blocked += record.blocks.length;
      totals.duringAnnouncedCoolDown += during;
    }
    return { config: this.#config, addresses, totals };
  }

  /** Every request time and block of one address (for checks finer than the report's counts). */
  record(address: string): AddressRecord | undefined {
    const record = this.#addresses.get(address);
    return record ? { requests: [...record.requests], blocks: [...record.blocks] } : undefined;
  }
}

/**
 * The answer a blocked request gets on `endpoint`. A shape that only one
 * endpoint can carry (the bot check is a player answer, the captcha and the
 * consent wall are watch pages, the empty body a caption answer) is used
 * there, and the unusual-traffic redirect everywhere else. `by-endpoint`
 * mixes them as YouTube does: captcha page, bot check, empty caption body,
 * and a 429 with Retry-After for the channel endpoints.
 */
export function answerFor(answer: BlockAnswer, endpoint: Endpoint): Exclude<BlockAnswer, "by-endpoint"> {
  if (answer === "by-endpoint") {
    if (endpoint === "watch") return "captcha";
    if (endpoint === "player") return "bot-check";
    if (endpoint === "timedtext") return "empty-caption";
    return "rate-limit";
  }
  const only: Partial<Record<BlockAnswer, Endpoint>> = { "bot-check": "player", captcha: "watch", consent: "watch", "empty-caption": "timedtext" };
  const where = only[answer];
  return where === undefined || where === endpoint ? answer : "unusual-traffic";
}

/** The client's address as the stand-in records it (IPv4-mapped IPv6 written as IPv4). */
export function clientAddress(remoteAddress: string | undefined): string {
  const address = remoteAddress ?? "unknown";
  return address.startsWith("::ffff:") ? address.slice(7) : address;
}

function validate(config: LimitsConfig): void {
  for (const key of ["budget", "windowMs", "coolDownMs"] as const) {
    if (!Number.isInteger(config[key]) || config[key] < 1) throw new TypeError(`Expected the limits' "${key}" to be a positive integer`);
  }
  if (config.answer !== undefined && !BLOCK_ANSWERS.includes(config.answer)) {
    throw new TypeError(`Expected the limits' "answer" to be one of ${BLOCK_ANSWERS.join(", ")}`);
  }
}
