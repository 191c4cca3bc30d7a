import { basename, dirname, join, relative } from 'node:path';
import { parseJsonText } from '@osharm/task-schema/internal';
import { DEFAULT_FILE_LIMITS, readTrajectoryText } from '@osharm/task-schema/trajectory';

/**
 * The `timing.processing_times` of the batch results file a judging is about to rewrite, for the
 * trajectories it does not judge again (resume): their times were measured when they were judged
 * and are kept, so rewriting the file over skipped judgments does not empty them. Only finite,
 * non-negative numbers are kept; an unreadable or invalid file gives none.
 */
export async function previousProcessingTimes(
  rootDir: string,
  resultsFile: string,
  keep: ReadonlySet<string>,
): Promise<Record<string, number>> {
  let text: string;
  try {
    text = await readTrajectoryText(relative(rootDir, resultsFile), {
      within: rootDir,
      maxBytes: DEFAULT_FILE_LIMITS.maxTextBytes,
    });
  } catch {
    return {};
  }
  const json = parseJsonText(text, resultsFile);
  if (!json.ok) return {};
  // Only the times are read: the file may be upstream's, with loosely formed verdicts in `results`.
  const recorded = (json.value as { timing?: { processing_times?: unknown } } | null)?.timing
    ?.processing_times;
  if (typeof recorded !== 'object' || recorded === null || Array.isArray(recorded)) return {};
  const times: Record<string, number> = {};
  for (const [dir, seconds] of Object.entries(recorded))
    if (keep.has(dir) && typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0)
      times[dir] = seconds;
  return times;
}

/**
 * Where this judging writes its batch results file: upstream's name
 * (`batch_judgment_results_{model}_{type}_{version}.json`) unless a file of that name exists that
 * osharm did not write (osharm's carry a `usage` key; upstream's never do) — then
 * `….osharm.json` beside it, so upstream's file stays as it is.
 */
export async function resultsFileToWrite(rootDir: string, upstreamName: string): Promise<string> {
  let text: string;
  try {
    text = await readTrajectoryText(relative(rootDir, upstreamName), {
      within: rootDir,
      maxBytes: DEFAULT_FILE_LIMITS.maxTextBytes,
    });
  } catch (error) {
    if ((error as { reason?: unknown; code?: unknown }).reason === 'missing') return upstreamName;
    if ((error as { code?: unknown }).code === 'ENOENT') return upstreamName;
    return osharmSibling(upstreamName); // refused (symlink, too large …): never written over
  }
  const json = parseJsonText(text, upstreamName);
  const ours =
    json.ok &&
    typeof json.value === 'object' &&
    json.value !== null &&
    typeof (json.value as { usage?: unknown }).usage === 'object';
  return ours ? upstreamName : osharmSibling(upstreamName);
}

const osharmSibling = (file: string) =>
  join(dirname(file), basename(file).replace(/\.json$/, '.osharm.json'));
