import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import { INJECTION_EVIDENCE_FILE, injectionEvidenceSchema } from '@osharm/injection';
import { describeTrajectoryPath, type TrajectoryPathOverrides } from '@osharm/metrics';
import {
  betterLogSchema,
  checkTrajectoryFile,
  screenshotChecker,
  DEFAULT_FILE_LIMITS,
  isTrajErrorLine,
  OBSERVATION_TYPES,
  parseJsonText,
  parseResultTxt,
  parseTrajJsonl,
  readRunStatus,
  SETUP_WARNINGS_FILE,
  setupWarningsSchema,
  FIDELITY_FILE,
  fidelityRecordSchema,
  type BetterLog,
  type TrajectoryFileLimits,
  type TrajLine,
  type TrajStepLine,
} from '@osharm/task-schema';
import { separateProvenance } from './judge-provenance';
import { mapLimit } from './map-limit';
import {
  BATCH_RESULTS_FILE,
  loadJudgments,
  readCapped,
  readJudgeFailures,
  runEnded,
  UPSTREAM_DEFAULT_JUDGE,
} from './tree-files';
import type {
  ExecutedAction,
  JudgeConfig,
  ResultsTree,
  StepRecord,
  TrajectoryRecord,
} from './results-tree';

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

const skippedDirs = new Set(['judgment', 'captions', 'node_modules', '.git', '.osharm-batch']);

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
 * Dirs under `root` (itself included) that hold a `better_log.json`, sorted. Batch results files
 * (`batch_judgment_results_*.json`) met on the way are added to `resultsFiles` when given.
 */
export async function discoverTrajectoryDirs(
  root: string,
  resultsFiles?: string[],
): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some(entry => entry.isFile() && entry.name === 'better_log.json')) found.push(dir);
    for (const entry of entries)
      if (entry.isFile() && BATCH_RESULTS_FILE.test(entry.name))
        resultsFiles?.push(join(dir, entry.name));
    for (const entry of entries) {
      if (entry.isDirectory() && !skippedDirs.has(entry.name)) await walk(join(dir, entry.name));
    }
  };
  await walk(root);
  return found.sort();
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
  const notes: string[] = [];
  const mtimes: number[] = [];
  const readText = (name: string) => readCapped(dir, name, limits.maxTextBytes, mtimes, notes);

  // better_log.json: rewritten after every step upstream (not atomically), so it may be mid-write.
  let betterLog: BetterLog | undefined;
  const logText = await readText('better_log.json');
  if (logText !== undefined) {
    const json = parseJsonText(logText, 'better_log.json');
    if (!json.ok) notes.push(`better_log.json is not valid JSON: ${json.issue.message}`);
    else {
      const parsed = betterLogSchema.safeParse(json.value);
      if (parsed.success) betterLog = json.value as BetterLog;
      else
        notes.push(
          `better_log.json does not have the expected shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
        );
    }
  } else notes.push('better_log.json could not be read');

  // traj.jsonl: one line per executed action, plus {"Error": …} lines.
  let trajLines: TrajLine[] = [];
  const trajText = await readText('traj.jsonl');
  if (trajText === undefined) notes.push('traj.jsonl is missing');
  else {
    const parsed = parseTrajJsonl(trajText, { file: 'traj.jsonl' });
    trajLines = parsed.lines;
    for (const issue of parsed.issues)
      notes.push(
        `traj.jsonl${issue.line === undefined ? '' : ` line ${issue.line}`}: ${issue.message}`,
      );
  }
  const stepLines = trajLines.filter((line): line is TrajStepLine => !isTrajErrorLine(line));
  const errors = trajLines.filter(isTrajErrorLine).map(line => line.Error);

  // Screenshots: each name checked once (inside the dir, a regular image file under the cap).
  const { check: fileIn, refused } = screenshotChecker(dir, limits.maxImageBytes, notes);
  const executedOf = (stepIndex: number): Promise<ExecutedAction[]> =>
    Promise.all(
      stepLines
        .filter(line => line.step_num === stepIndex + 1)
        .map(async line => {
          const screenshot = await fileIn(line.screenshot_file);
          return {
            action: line.action,
            timestamp: line.action_timestamp,
            screenshotName: line.screenshot_file,
            ...(screenshot && { screenshot }),
          };
        }),
    );

  const logSteps = betterLog?.steps ?? [];
  const steps: StepRecord[] = await Promise.all(
    logSteps.map(async (step, index) => {
      const base = {
        index,
        response: step.response,
        actions: step.actions,
        screenshotName: step.screenshot_file,
        executed: await executedOf(index),
      };
      const logged = await fileIn(step.screenshot_file);
      if (logged) return { ...base, screenshot: logged };
      // A refused file (outside the dir, symlink, FIFO, too large) is never replaced by a guess.
      const refusal = refused.get(step.screenshot_file);
      if (refusal !== undefined)
        return {
          ...base,
          screenshotNote: `screenshot ${step.screenshot_file} was refused (${refusal}), not read`,
        };
      // Upstream quirk: after a step with no actions the logged "before" name is stale. The real
      // "before" screenshot is the one taken after the last action of an earlier step.
      const previous =
        index === 0
          ? 'step_0.png'
          : (stepLines.filter(line => line.step_num <= index).at(-1)?.screenshot_file ??
            'step_0.png');
      const fixed = previous !== step.screenshot_file ? await fileIn(previous) : undefined;
      if (fixed)
        return {
          ...base,
          screenshot: fixed,
          screenshotNote: `better_log.json names ${step.screenshot_file}, which does not exist; showing ${previous}`,
        };
      return { ...base, screenshotNote: `screenshot ${step.screenshot_file} is missing` };
    }),
  );
  const missing = steps.filter(step => step.screenshot === undefined).length;
  if (missing > 0) notes.push(`${missing} of ${steps.length} step screenshot(s) missing`);
  const stale = steps.filter(step => step.screenshot && step.screenshotNote).length;
  if (stale > 0) notes.push(`${stale} stale screenshot name(s) in better_log.json`);
  const finalScreenshot = await fileIn(stepLines.at(-1)?.screenshot_file ?? 'step_0.png');

  const instruction = betterLog?.task.instruction ?? '';
  if (betterLog && instruction.trim() === '') notes.push('the instruction is empty');

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
  const overrides: TrajectoryPathOverrides = {
    ...(logInjection?.goal_id
      ? { injection: { vector: logInjection.type, goal: logInjection.goal_id } }
      : {}),
    ...(betterLog?.task.jailbreak ? { jailbreak: true } : {}),
  };
  const described = describeTrajectoryPath(dir, overrides);
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
    ...(evidence && { evidence }),
    ...(setupWarnings && { setupWarnings }),
    ...(fidelity && { fidelity }),
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
    [record.root, record.actionSpace ?? '', record.observationType ?? '', record.model].join('\0');
  const groups = new Map<string, LoadedRecord>();
  for (const record of records)
    if (!groups.has(groupKey(record))) groups.set(groupKey(record), record);
  const candidates: ((record: LoadedRecord) => string)[] = [
    record => record.model,
    record => `${record.model} · ${record.observationType ?? '?'}`,
    record => `${record.model} · ${record.actionSpace ?? '?'} · ${record.observationType ?? '?'}`,
    record =>
      `${record.model} · ${record.actionSpace ?? '?'} · ${record.observationType ?? '?'} · ${basename(record.root)}`,
    record =>
      `${record.model} · ${record.actionSpace ?? '?'} · ${record.observationType ?? '?'} · ${record.root}`,
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
