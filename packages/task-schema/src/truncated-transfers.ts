import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-write';

/**
 * File name of a run's record of transfers out of the desktop that were cut at their cap (osharm's;
 * upstream has none). Absent when nothing was cut.
 */
export const TRUNCATED_TRANSFERS_FILE = 'truncated_transfers.json';

const entrySchema = z.object({
  /** The file in the run dir that holds the first `bytes` bytes only (e.g. `recording.mp4`). */
  file: z.string(),
  bytes: z.number().int().nonnegative(),
  /** The cap the transfer was stopped at, in bytes (0 when it was refused or failed instead). */
  cap: z.number().int().nonnegative(),
  /**
   * Why, when it is not a cut at `cap`: an evaluator's guest file (`file` is `evaluator:<guest path>`)
   * refused as sparse or special, or a failed request.
   */
  reason: z.string().max(500).optional(),
});
export const truncatedTransfersSchema = z.array(entrySchema);
export type TruncatedTransfer = z.infer<typeof entrySchema>;

/** Appends one cut transfer to the run dir's {@link TRUNCATED_TRANSFERS_FILE} (atomically). */
export async function recordTruncatedTransfer(
  dir: string,
  entry: TruncatedTransfer,
): Promise<void> {
  const known = await readTruncatedTransfers(dir);
  const next = [...known.filter(item => item.file !== entry.file), entry];
  await writeFileAtomic(join(dir, TRUNCATED_TRANSFERS_FILE), `${JSON.stringify(next, null, 2)}\n`);
}

/** The run dir's cut transfers ([] when the file is absent; a malformed file counts as one cut). */
export async function readTruncatedTransfers(dir: string): Promise<TruncatedTransfer[]> {
  let text: string;
  try {
    text = await readFile(join(dir, TRUNCATED_TRANSFERS_FILE), 'utf8');
  } catch {
    return [];
  }
  try {
    return truncatedTransfersSchema.parse(JSON.parse(text));
  } catch {
    return [{ file: TRUNCATED_TRANSFERS_FILE, bytes: 0, cap: 0 }];
  }
}
