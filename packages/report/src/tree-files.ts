import { lstat, readdir } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { DEFAULT_JUDGE_TYPE, DEFAULT_PROMPT_VERSION } from '@osharm/task-schema';
import { parseJsonText } from '@osharm/task-schema/internal';
import { readJudgmentLeniently } from '@osharm/task-schema/internal';
import { type TrajectoryFileLimits, type TrajStepLine } from '@osharm/task-schema/trajectory';
import { readCappedText } from '@osharm/task-schema/internal';
import { provenanceLabel } from './judge-provenance';
import type { JudgeFailure, JudgmentRecord } from './results-tree';

// What the report reads around a trajectory's own logs: capped text files, its judgments, whether
// the run has ended, and the failed judgments recorded in batch results files.

/**
 * Whether a run has ended: `result.txt` exists (osharm and upstream write it last), or
 * `traj.jsonl` holds an `{"Error": …}` line (upstream's exception path, e.g. the time limit), or
 * its last action is `DONE` / `FAIL` (`done: true`), or the run took `max_steps` steps. Published
 * upstream traces carry no `result.txt`, yet they are finished.
 */
export function runEnded(facts: {
  hasResult: boolean;
  errors: number;
  lastLine: TrajStepLine | undefined;
  steps: number;
  maxSteps: number | undefined;
}): boolean {
  if (facts.hasResult || facts.errors > 0) return true;
  const last = facts.lastLine;
  if (last && (last.done === true || last.action === 'DONE' || last.action === 'FAIL')) return true;
  return facts.maxSteps !== undefined && facts.maxSteps > 0 && facts.steps >= facts.maxSteps;
}

/** Upstream's default judge configuration (the paper's): preferred when several tie. */
export const UPSTREAM_DEFAULT_JUDGE = `gpt-4.1/${DEFAULT_JUDGE_TYPE}/${DEFAULT_PROMPT_VERSION}`;

/**
 * The `errors` of every batch results file found, for trajectories of the tree: judgments that
 * failed (no judgment.json was written for them), with the judge configuration of the file.
 */
export async function readJudgeFailures(
  files: readonly string[],
  dirs: ReadonlySet<string>,
  limits: Required<TrajectoryFileLimits>,
): Promise<JudgeFailure[]> {
  const failures: JudgeFailure[] = [];
  for (const file of [...files].sort()) {
    const notes: string[] = [];
    const text = await readCappedText(
      dirname(file),
      basename(file),
      limits.maxTextBytes,
      [],
      notes,
    );
    if (text === undefined) continue;
    const json = parseJsonText(text, file);
    if (!json.ok || typeof json.value !== 'object' || json.value === null) continue;
    const value = json.value as {
      config?: { judge_model?: unknown; judge_type?: unknown; sys_prompt_version?: unknown };
      errors?: unknown;
      results?: unknown;
    };
    if (typeof value.errors !== 'object' || value.errors === null) continue;
    const config = value.config ?? {};
    const key = [config.judge_model, config.judge_type, config.sys_prompt_version].every(
      part => typeof part === 'string',
    )
      ? `${String(config.judge_model)}/${String(config.judge_type)}/${String(config.sys_prompt_version)}`
      : undefined;
    // Keys are paths as the judge was given them, relative to its working dir: try the working
    // dir here, then the file's dir and each of its parents.
    const bases = [process.cwd()];
    for (let base = dirname(file); !bases.includes(base); base = dirname(base)) bases.push(base);
    for (const [where, reason] of Object.entries(value.errors as Record<string, unknown>)) {
      if (typeof reason !== 'string') continue;
      const dir = bases.map(base => resolve(base, where)).find(candidate => dirs.has(candidate));
      failures.push({
        file,
        ...(key !== undefined && { key }),
        ...(dir !== undefined && { dir }),
        reason: reason.replace(/^Error processing .*?: /, ''),
      });
    }
  }
  return failures;
}

/** Every `judgment/**\/judgment.json` of a trajectory (judge model names may contain `/`). */
export async function loadJudgments(
  dir: string,
  mtimes: number[],
  limits: Required<TrajectoryFileLimits>,
  notes: string[],
): Promise<JudgmentRecord[]> {
  const base = join(dir, 'judgment');
  let info;
  try {
    info = await lstat(base);
  } catch {
    return [];
  }
  if (!info.isDirectory()) {
    notes.push(`judgment/ is ${info.isSymbolicLink() ? 'a symlink' : 'not a directory'}: not read`);
    return [];
  }
  const files: string[] = [];
  const walk = async (current: string, depth: number): Promise<void> => {
    if (depth > 6) return;
    let entries;
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) await walk(path, depth + 1);
      else if (entry.name === 'judgment.json') files.push(path);
    }
  };
  await walk(base, 0);
  const records: JudgmentRecord[] = [];
  for (const file of files.sort()) {
    const parts = relative(base, file).split(sep);
    // {model…}/{type}/{version}/judgment.json
    if (parts.length < 4) continue;
    const promptVersion = parts.at(-2)!;
    const judgeType = parts.at(-3)!;
    const judgeModel = parts.slice(0, -3).join('/');
    const head = {
      key: `${judgeModel}/${judgeType}/${promptVersion}`,
      judgeModel,
      judgeType,
      promptVersion,
      file,
      provenanceLabel: provenanceLabel(undefined),
    };
    const text = await readCappedText(dir, relative(dir, file), limits.maxTextBytes, mtimes, notes);
    if (text === undefined) continue;
    const json = parseJsonText(text, file);
    if (!json.ok) {
      records.push({ ...head, error: `not valid JSON (${json.issue.message})` });
      continue;
    }
    // Another tool's loosely formed verdict is read where its meaning is clear, and says so.
    const read = readJudgmentLeniently(json.value);
    if (read.ok)
      records.push({
        ...head,
        judgment: read.judgment,
        ...(read.provenance && {
          provenance: read.provenance,
          provenanceLabel: provenanceLabel(read.provenance),
        }),
        ...(read.normalised.length > 0 && { normalised: read.normalised }),
      });
    else records.push({ ...head, error: `not a judgment (${read.issue})` });
  }
  return records;
}
