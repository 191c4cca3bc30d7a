/**
 * Runs the mapped actions of one model turn in order and stops at the first that fails: an
 * action that could not be mapped, or one the guest reports as failed. The rest of the batch is
 * not run (the model gets an error result for the failed one and is told the rest were skipped).
 */
import type { MappedAction } from './mapped-action';

/** What happened to one action of a batch. */
export type BatchOutcome =
  | { status: 'done'; mapped: MappedAction }
  | { status: 'failed'; mapped: MappedAction; error: string }
  | { status: 'skipped'; mapped: MappedAction };

/** Sends one action's pyautogui code to the guest; rejects or returns an error when it fails. */
export type GuestExecute = (code: string) => Promise<{ error?: string } | void>;

export async function runActionBatch(
  batch: readonly MappedAction[],
  execute: GuestExecute,
): Promise<BatchOutcome[]> {
  const outcomes: BatchOutcome[] = [];
  let failed = false;
  for (const mapped of batch) {
    if (failed) {
      outcomes.push({ status: 'skipped', mapped });
      continue;
    }
    if ('error' in mapped) {
      outcomes.push({ status: 'failed', mapped, error: mapped.error });
      failed = true;
      continue;
    }
    if (mapped.code === null) {
      outcomes.push({ status: 'done', mapped });
      continue;
    }
    try {
      const result = await execute(mapped.code);
      if (result && typeof result.error === 'string') {
        outcomes.push({ status: 'failed', mapped, error: `${mapped.name}: ${result.error}` });
        failed = true;
      } else outcomes.push({ status: 'done', mapped });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      outcomes.push({ status: 'failed', mapped, error: `${mapped.name}: ${message}` });
      failed = true;
    }
  }
  return outcomes;
}
