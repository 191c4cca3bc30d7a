/** A fault the stand-in injects into a direct model call instead of the scripted reply. */
export type ModelFault = 'rate-limit' | 'server-error' | 'timeout' | 'malformed' | 'drop';

/** Probabilities of injected faults, drawn once per direct model call from a seeded generator. */
export interface FaultOptions {
  /** Probability (0–1) of a 429 answer with `retry-after` and `retry-after-ms` headers. */
  rateLimit?: number;
  /** Probability (0–1) of a 500 answer. */
  serverError?: number;
  /** Probability (0–1) of no answer for `timeoutMs`, after which the connection is dropped. */
  timeout?: number;
  /** Probability (0–1) of a structured output whose JSON is broken (or misses required keys). */
  malformed?: number;
  /** Probability (0–1) of the connection being dropped at once, with no answer (a reset). */
  drop?: number;
  /** Seed of the generator, so the same seed gives the same fault sequence (default 1). */
  seed?: number;
  /**
   * Wait the 429 answers ask for, in seconds (default 0.01). Sent as `retry-after` (whole seconds,
   * rounded up) and `retry-after-ms` (exact), which the SDKs prefer.
   */
  retryAfterSeconds?: number;
  /** How long a `timeout` fault keeps the request open before dropping it, in ms (default 10000). */
  timeoutMs?: number;
}

/** Default of {@link FaultOptions.retryAfterSeconds}. */
export const DEFAULT_RETRY_AFTER_SECONDS = 0.01;

/** Default of {@link FaultOptions.timeoutMs}. */
export const DEFAULT_FAULT_TIMEOUT_MS = 10_000;

const FAULT_RATES = [
  ['rate-limit', 'rateLimit'],
  ['server-error', 'serverError'],
  ['timeout', 'timeout'],
  ['malformed', 'malformed'],
  ['drop', 'drop'],
] as const satisfies ReadonlyArray<readonly [ModelFault, keyof FaultOptions]>;

/**
 * A deterministic generator of numbers in [0, 1) (the mulberry32 algorithm): the same seed always
 * gives the same sequence.
 */
export function createSeededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Throws a `RangeError` when a probability is outside [0, 1] or they add up to more than 1. */
function checkFaultOptions(faults: FaultOptions): void {
  let total = 0;
  for (const [, key] of FAULT_RATES) {
    const rate = faults[key] ?? 0;
    if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1))
      throw new RangeError(`faults.${key} must be a probability between 0 and 1, got ${rate}`);
    total += rate;
  }
  if (total > 1 + 1e-9)
    throw new RangeError(`the fault probabilities add up to ${total}, more than 1`);
  for (const key of ['retryAfterSeconds', 'timeoutMs'] as const) {
    const value = faults[key];
    if (value !== undefined && !(typeof value === 'number' && value >= 0))
      throw new RangeError(`faults.${key} must be a number ≥ 0, got ${value}`);
  }
}

/**
 * The fault sequence of a stand-in: each call of the returned function draws one number from a
 * generator seeded with `faults.seed` and maps it onto the fault probabilities (in the order
 * rate limit, server error, timeout, malformed, drop), or `undefined` for no fault. The stand-in draws
 * once per direct model call, in arrival order; call this yourself to predict its faults.
 */
export function createFaultSequence(faults: FaultOptions = {}): () => ModelFault | undefined {
  checkFaultOptions(faults);
  const random = createSeededRandom(faults.seed ?? 1);
  return () => {
    const draw = random();
    let threshold = 0;
    for (const [fault, key] of FAULT_RATES) {
      threshold += faults[key] ?? 0;
      if (draw < threshold) return fault;
    }
    return undefined;
  };
}

/** A copy of `items` in an order shuffled by `random` (Fisher–Yates). */
export function shuffled<Item>(items: readonly Item[], random: () => number): Item[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}
