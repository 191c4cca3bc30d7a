import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, relative, resolve, sep } from 'node:path';
import { OBSERVATION_TYPES } from '@osharm/task-schema';
import { parseJsonText } from '@osharm/task-schema/internal';
import {
  FIDELITY_FILE,
  fidelityRecordSchema,
  SETUP_WARNINGS_FILE,
  setupWarningsSchema,
} from '@osharm/task-schema/artifacts';
import {
  checkTrajectoryFile,
  DEFAULT_FILE_LIMITS,
  describeTrajectoryPath,
  discoverTrajectories,
  INJECTION_EVIDENCE_FILE,
  injectionEvidenceSchema,
  OBSERVED_HARM_FILE,
  RUN_USAGE_FILE,
  runUsageSchema,
  type RunUsage,
  observedHarmSchema,
  parseResultTxt,
  readRunStatus,
  readTrajectory,
  runFactsOf,
  type TrajectoryFileLimits,
} from '@osharm/task-schema/trajectory';
import { readCappedText } from '@osharm/task-schema/internal';
import { promptFamilyText, separateProvenance } from './judge-provenance';
import { mapLimit } from './map-limit';
import { loadJudgments, readJudgeFailures, runEnded, UPSTREAM_DEFAULT_JUDGE } from './tree-files';
import type { JudgeConfig, ResultsTree, StepRecord, TrajectoryRecord } from './results-tree';

/** Options of {@link loadResultsTree}. */
export interface LoadResultsTreeOptions {
  /**
   * Directory relative roots are resolved against.
   * @default process.cwd()
   */
  readonly cwd?: string;
  /**
   * Trajectories read at once.
   * @default 16
   */
  readonly concurrency?: number;
  /**
   * Size caps on the files read (`better_log.json`, `traj.jsonl`, judgments, screenshots). A file
   * over its cap, a symlink, a FIFO or device, or a name that leaves the trajectory dir is never
   * read: it becomes a note (a screenshot counts as missing).
   * @default `DEFAULT_FILE_LIMITS` of `@osharm/task-schema` (32 MiB each)
   */
  readonly limits?: TrajectoryFileLimits;
}

/**
 * Reads one or more results trees into typed records: every dir holding a `better_log.json`
 * (upstream's or osharm's layout,
 * `{action_space}/{observation_type}/{model}[_jailbreak]/{domain}/{task_id}[__inject__{vector}__{goal}]`),
 * with its steps and screenshots, every `judgment/{model}/{type}/{version}/judgment.json`, the
 * `result.txt` score, `injection_evidence.json` and `recording.mp4`.
 *
 * Never throws for what real trees contain: an unreadable `better_log.json` (e.g. mid-rewrite),
 * bad `traj.jsonl` lines, `{"Error": …}` lines, missing or stale-named screenshots, an empty
 * instruction or an invalid judgment each become a note on the trajectory.
 *
 * @throws {Error} when a root does not exist.
 */
export async function loadResultsTree(
  roots: readonly string[],
  { cwd = process.cwd(), concurrency = 16, limits: given }: LoadResultsTreeOptions = {},
): Promise<ResultsTree> {
  const limits = { ...DEFAULT_FILE_LIMITS, ...given };
  const absoluteRoots = roots.map(root => resolve(cwd, root));
  const found: { root: string; dir: string }[] = [];
  const resultsFiles: string[] = [];
  for (const root of absoluteRoots) {
    if (!existsSync(root)) throw new Error(`results dir not found: ${root}`);
    for (const dir of await discoverTrajectoryDirs(root, resultsFiles)) found.push({ root, dir });
  }
  const loaded = await mapLimit(found, concurrency, ({ root, dir }) =>
    loadTrajectoryRecord(dir, root, limits),
  );
  const trajectories = separateProvenance(assignRunLabels(loaded));
  return {
    roots: absoluteRoots,
    trajectories,
    judges: judgeConfigs(trajectories),
    judgeFailures: await readJudgeFailures(
      resultsFiles,
      new Set(found.map(item => item.dir)),
      limits,
    ),
    limits,
    loadedAt: new Date().toISOString(),
  };
}

/**
 * Dirs under `root` (itself included) that hold a `better_log.json`, sorted (task-schema's
 * `discoverTrajectories`, the judge's search). Batch results files
 * (`batch_judgment_results_*.json`) met on the way are added to `resultsFiles` when given.
 */
export async function discoverTrajectoryDirs(
  root: string,
  resultsFiles?: string[],
): Promise<string[]> {
  return discoverTrajectories(root, resultsFiles ? { resultsFiles } : {});
}

/** Same id for the same absolute dir, across reloads and processes. */
export function trajectoryId(dir: string): string {
  return createHash('sha256').update(dir).digest('hex').slice(0, 12);
}

type LoadedRecord = Omit<TrajectoryRecord, 'runLabel'>;

/** Reads one trajectory dir (see {@link loadResultsTree} for what is tolerated). */
async function loadTrajectoryRecord(
  dir: string,
  root: string,
  limits: Required<TrajectoryFileLimits>,
): Promise<LoadedRecord> {
  // better_log.json, traj.jsonl and the screenshots: task-schema's reader (the judge's too).
  const read = await readTrajectory(dir, { limits });
  // better_log.json is rewritten after every step upstream (not atomically): it may be mid-write.
  const { betterLog, betterLogProblem: problem } = read;
  const logNote =
    problem?.reason === 'not-json'
      ? `better_log.json is not valid JSON: ${problem.issues[0]?.message ?? 'invalid'}`
      : problem?.reason === 'invalid'
        ? `better_log.json does not have the expected shape: ${problem.issues[0]?.message ?? 'invalid'}`
        : problem && 'better_log.json could not be read';
  // The log's note first (after the refusal, which the reader noted first).
  const at = problem?.reason === 'refused' ? 1 : 0;
  const notes = logNote
    ? [...read.notes.slice(0, at), logNote, ...read.notes.slice(at)]
    : [...read.notes];
  const mtimes: number[] = [read.updatedMs];
  const readText = (name: string) => readCappedText(dir, name, limits.maxTextBytes, mtimes, notes);
  const { stepLines, errors } = read;
  const steps: StepRecord[] = read.steps.map(step => ({
    index: step.index,
    response: step.response,
    actions: step.actions,
    screenshotName: step.screenshotName,
    executed: step.executed,
    ...(step.screenshot && { screenshot: step.screenshot }),
    ...(step.screenshotNote !== undefined && { screenshotNote: step.screenshotNote }),
  }));
  if (read.missingScreenshots > 0)
    notes.push(`${read.missingScreenshots} of ${steps.length} step screenshot(s) missing`);
  if (read.staleScreenshots > 0)
    notes.push(`${read.staleScreenshots} stale screenshot name(s) in better_log.json`);
  const { finalScreenshot, instruction } = read;

  // result.txt: the evaluator score; its presence marks a finished run.
  let score: number | undefined;
  const resultText = await readText('result.txt');
  if (resultText !== undefined) {
    try {
      score = parseResultTxt(resultText, { file: 'result.txt' });
    } catch {
      notes.push(`result.txt does not hold a number: ${JSON.stringify(resultText.slice(0, 40))}`);
    }
  }

  let evidence: TrajectoryRecord['evidence'];
  const evidenceText = await readText(INJECTION_EVIDENCE_FILE);
  if (evidenceText !== undefined) {
    const json = parseJsonText(evidenceText, INJECTION_EVIDENCE_FILE);
    const parsed = json.ok ? injectionEvidenceSchema.safeParse(json.value) : undefined;
    if (parsed?.success) evidence = parsed.data;
    else notes.push(`${INJECTION_EVIDENCE_FILE} is not valid`);
  }

  let observedHarm: TrajectoryRecord['observedHarm'];
  const harmText = await readText(OBSERVED_HARM_FILE);
  if (harmText !== undefined) {
    const json = parseJsonText(harmText, OBSERVED_HARM_FILE);
    const parsed = json.ok ? observedHarmSchema.safeParse(json.value) : undefined;
    if (parsed?.success) observedHarm = parsed.data;
    else notes.push(`${OBSERVED_HARM_FILE} is not valid`);
  }

  const status = await readRunStatus(dir);
  let setupWarnings: TrajectoryRecord['setupWarnings'];
  let setupDownloads: TrajectoryRecord['setupDownloads'];
  const warningsText = await readText(SETUP_WARNINGS_FILE);
  if (warningsText !== undefined) {
    const json = parseJsonText(warningsText, SETUP_WARNINGS_FILE);
    const parsed = json.ok ? setupWarningsSchema.safeParse(json.value) : undefined;
    if (parsed?.success) {
      setupWarnings = parsed.data.warnings;
      setupDownloads = parsed.data.downloads;
    } else notes.push(`${SETUP_WARNINGS_FILE} is not valid`);
  }

  let fidelity: TrajectoryRecord['fidelity'];
  const fidelityText = await readText(FIDELITY_FILE);
  if (fidelityText !== undefined) {
    const json = parseJsonText(fidelityText, FIDELITY_FILE);
    const parsed = json.ok ? fidelityRecordSchema.safeParse(json.value) : undefined;
    if (parsed?.success)
      fidelity = { faithful: parsed.data.faithful, reasons: parsed.data.reasons };
    else notes.push(`${FIDELITY_FILE} is not valid`);
  }

  let usage: RunUsage | undefined;
  const usageText = await readText(RUN_USAGE_FILE);
  if (usageText !== undefined) {
    const json = parseJsonText(usageText, RUN_USAGE_FILE);
    const parsed = json.ok ? runUsageSchema.safeParse(json.value) : undefined;
    if (parsed?.success) usage = parsed.data;
    else notes.push(`${RUN_USAGE_FILE} is not valid (its cost is not counted)`);
  }

  const judgments = await loadJudgments(dir, mtimes, limits, notes);
  for (const record of judgments) {
    if (record.error) notes.push(`judgment ${record.key}: ${record.error}`);
    if (record.normalised)
      notes.push(`judgment ${record.key}: read leniently (${record.normalised.join('; ')})`);
  }

  // recording.mp4: never read here, only linked / streamed; it must still be a regular file inside.
  const recordingCheck = await checkTrajectoryFile('recording.mp4', {
    within: dir,
    maxBytes: Number.MAX_SAFE_INTEGER,
  });
  const recording = recordingCheck.ok ? recordingCheck.path : undefined;
  if (!recordingCheck.ok && recordingCheck.reason !== 'missing')
    notes.push(`recording refused (not served): ${recordingCheck.message}`);

  // Run facts: the path when it follows upstream's layout, corrected by better_log.json.
  const relativeDir = relative(root, dir).split(sep).join('/') || '.';
  const logInjection = betterLog?.task.injection;
  const recorded = betterLog ? runFactsOf(betterLog) : undefined;
  const described = describeTrajectoryPath(dir, recorded ?? {});
  const followsLayout =
    described.observationType !== undefined &&
    (OBSERVATION_TYPES as readonly string[]).includes(described.observationType);
  const params = betterLog?.params;
  const model =
    (followsLayout ? described.model : undefined) ?? params?.model ?? basename(dirname(dir));
  return {
    id: trajectoryId(dir),
    dir,
    root,
    relativeDir,
    taskId: described.taskId,
    category: described.category,
    ...(followsLayout && described.domain !== undefined && { domain: described.domain }),
    model,
    jailbreak: described.jailbreak,
    ...((followsLayout ? described.observationType : params?.observation_type) !== undefined && {
      observationType: followsLayout ? described.observationType : params?.observation_type,
    }),
    ...((followsLayout ? described.actionSpace : params?.action_space) !== undefined && {
      actionSpace: followsLayout ? described.actionSpace : params?.action_space,
    }),
    ...(described.injection && { injection: described.injection }),
    ...(typeof logInjection?.content === 'string' && { injectionContent: logInjection.content }),
    ...(params && { params }),
    ...(recorded?.promptFamily !== undefined && { promptFamily: recorded.promptFamily }),
    instruction,
    steps,
    ...(finalScreenshot && { finalScreenshot }),
    errors,
    notes,
    judgments,
    ...(score !== undefined && { score }),
    finished:
      status.state !== 'unfinished' ||
      runEnded({
        hasResult: resultText !== undefined,
        errors: errors.length,
        lastLine: stepLines.at(-1),
        steps: steps.length,
        maxSteps: params?.max_steps,
      }),
    ...(status.state === 'errored' && { errored: status.reason }),
    ...(status.state === 'environment_destroyed_by_agent' && {
      destroyedByAgent: { step: status.step, reason: status.reason },
    }),
    ...(evidence && { evidence }),
    ...(observedHarm && { observedHarm }),
    ...(setupWarnings && { setupWarnings }),
    ...(fidelity && { fidelity }),
    ...(usage && { usage }),
    ...(setupDownloads && { setupDownloads }),
    ...(recording && { recording }),
    updatedMs: Math.max(0, ...mtimes),
  };
}

const dirname = (path: string): string => resolve(path, '..');

/**
 * Labels run groups (root × action space × observation type × model) so that several results
 * dirs compare side by side: the model alone when that is unique, else with the observation
 * type, the action space and finally the root's name added.
 */
function assignRunLabels(records: readonly LoadedRecord[]): TrajectoryRecord[] {
  const groupKey = (record: LoadedRecord) =>
    [
      record.root,
      record.actionSpace ?? '',
      record.observationType ?? '',
      record.model,
      record.promptFamily ?? '',
    ].join('\0');
  const groups = new Map<string, LoadedRecord>();
  for (const record of records)
    if (!groups.has(groupKey(record))) groups.set(groupKey(record), record);
  // Runs made with upstream's prompts always say so; runs of different prompt families never share a label.
  const family = (record: LoadedRecord) =>
    record.promptFamily === 'upstream' || record.promptFamily === 'unreadable'
      ? ` · ${record.promptFamily} prompts`
      : '';
  const candidates: ((record: LoadedRecord) => string)[] = [
    record => `${record.model}${family(record)}`,
    record => `${record.model} · ${record.observationType ?? '?'}${family(record)}`,
    record =>
      `${record.model} · ${record.actionSpace ?? '?'} · ${record.observationType ?? '?'}${family(record)}`,
    record =>
      `${record.model} · ${record.actionSpace ?? '?'} · ${record.observationType ?? '?'} · ${basename(record.root)}${family(record)}`,
    record =>
      `${record.model} · ${record.actionSpace ?? '?'} · ${record.observationType ?? '?'} · ${record.root} · ${record.promptFamily ?? 'unrecorded'} prompts`,
  ];
  const labels = new Map<string, string>();
  const representatives = [...groups.values()];
  for (const representative of representatives) {
    const label =
      candidates
        .map(candidate => candidate(representative))
        .find(
          (label, level) =>
            representatives.filter(other => candidates[level]!(other) === label).length === 1,
        ) ?? candidates.at(-1)!(representative);
    labels.set(groupKey(representative), label);
  }
  return records.map(record => ({ ...record, runLabel: labels.get(groupKey(record))! }));
}

function judgeConfigs(trajectories: readonly TrajectoryRecord[]): JudgeConfig[] {
  const configs = new Map<string, JudgeConfig>();
  for (const trajectory of trajectories) {
    for (const record of trajectory.judgments) {
      if (!record.judgment) continue;
      const existing = configs.get(record.key);
      configs.set(record.key, {
        key: record.key,
        judgeModel: record.judgeModel,
        judgeType: record.judgeType,
        promptVersion: record.promptVersion,
        provenance: record.provenanceLabel,
        promptFamily: promptFamilyText(record.provenance),
        count: (existing?.count ?? 0) + 1,
        normalised: (existing?.normalised ?? 0) + (record.normalised ? 1 : 0),
      });
    }
  }
  return [...configs.values()].sort(
    (left, right) =>
      right.count - left.count ||
      Number(right.key === UPSTREAM_DEFAULT_JUDGE) - Number(left.key === UPSTREAM_DEFAULT_JUDGE) ||
      left.key.localeCompare(right.key),
  );
}
