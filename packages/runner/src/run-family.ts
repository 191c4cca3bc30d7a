import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promptProvenanceSchema, type PromptProvenance } from '@osharm/task-schema';
import { RunOptionsError } from './run-options';
import type { PlannedRun } from './run-plan';

/**
 * The prompt provenance a finished run recorded (better_log.json `params.osharm_prompts`). A run
 * without the key predates it and was made with osharm's own wording.
 */
async function recordedProvenance(dir: string): Promise<PromptProvenance | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, 'better_log.json'), 'utf8');
  } catch {
    return undefined;
  }
  let recorded: unknown;
  try {
    recorded = (JSON.parse(text) as { params?: { osharm_prompts?: unknown } }).params
      ?.osharm_prompts;
  } catch {
    return undefined; // an unreadable log: readRunStatus did not call the run finished either
  }
  if (recorded === undefined) return { prompt_family: 'osharm' };
  const parsed = promptProvenanceSchema.safeParse(recorded);
  if (!parsed.success)
    throw new RunOptionsError(
      `${join(dir, 'better_log.json')}: params.osharm_prompts is not a prompt provenance record`,
    );
  return parsed.data;
}

const sourcesKey = (provenance: PromptProvenance) =>
  JSON.stringify(
    (provenance.upstream_sources ?? []).map(source => [source.file, source.symbol, source.sha256]),
  );

/**
 * Resume never mixes prompt families: a finished run of the planned ones that was made with the
 * other family (or with upstream texts from a checkout whose files differ) stops the batch before
 * anything starts. Runs of two families go to two result dirs.
 * @throws {RunOptionsError} naming the run, both families and what to do
 */
export async function checkPromptFamily(
  runs: readonly PlannedRun[],
  provenance: PromptProvenance,
): Promise<void> {
  for (const run of runs) {
    if (!run.finished) continue;
    const recorded = await recordedProvenance(run.dir);
    if (recorded === undefined) continue;
    if (recorded.prompt_family !== provenance.prompt_family)
      throw new RunOptionsError(
        `${run.dir}: this finished run was made with prompt family "${recorded.prompt_family}", and this batch uses "${provenance.prompt_family}"${provenance.prompt_family === 'upstream' ? ' (--upstream)' : ''}: runs of two prompt families are never mixed in one result dir; pass another --result-dir`,
      );
    if (sourcesKey(recorded) !== sourcesKey(provenance))
      throw new RunOptionsError(
        `${run.dir}: this finished run was made with upstream texts from other files (params.osharm_prompts.upstream_sources differ from this checkout's): pass another --result-dir`,
      );
  }
}
