import type { DescribedRequest, ModelCall } from './model-call';
import type { ScriptedReply } from './scripted-reply';

/** How one batch request went through `respond`. */
export type BatchCallOutcome =
  { call: ModelCall; reply: ScriptedReply } | { call: ModelCall; error: string };

/** What the batch stores need from the stand-in. */
export interface StandInContext {
  /** Base URL of the stand-in, without a trailing slash. */
  readonly url: string;
  /** How long a batch stays in progress before it is processed, in ms. */
  readonly completeAfterMs: number;
  /** Records one batch request as a model call and asks `respond` for its reply. */
  runBatchCall(
    described: DescribedRequest,
    headers: Record<string, string>,
    batchId: string,
    customId: string,
  ): Promise<BatchCallOutcome>;
  /** A new unique id: `prefix` and a counter. */
  nextId(prefix: string): string;
  /** Seeded generator for the order of batch results. */
  readonly shuffleRandom: () => number;
  /** Runs `task` after `delayMs` unless the stand-in closes first. */
  schedule(delayMs: number, task: () => void | Promise<void>): void;
}

/** Unix time in seconds. */
export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
