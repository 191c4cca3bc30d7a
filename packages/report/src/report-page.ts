import { basename } from 'node:path';
import { agreementTable, type HumanLabel } from '@osharm/metrics';
import { nativeRunSummary } from './native-run';
import { allJudgments, defaultJudgeKey } from './report-items';
import type {
  CompactVerdict,
  ImageRef,
  PageData,
  StepDetail,
  TrajectoryDetail,
  TrajectorySummary,
} from './report-page-data';
import { agreementHtml, buildViews, tableHtml } from './report-views';
import { runCostCell, usageTable } from './usage-tables';
import { escapeHtml } from './html-escape';
import { formatObserverAgreement } from './observer-agreement-text';
import type { ResultsTree, TrajectoryRecord } from './results-tree';

/** How a page refers to the files of a trajectory (static report or viewer). */
export interface FileLinker {
  /** An image of the trajectory: thumbnail reference and full-size URL. */
  image(record: TrajectoryRecord, file: string): Promise<ImageRef>;
  /** URL of any other file of the trajectory (full-size screenshot after an action, recording). */
  url(record: TrajectoryRecord, file: string): string;
}

/** Grid column of a trajectory: its run label, plus ` + jailbreak` for jailbreak runs. */
export function gridColumn(record: TrajectoryRecord): string {
  return record.jailbreak ? `${record.runLabel} + jailbreak` : record.runLabel;
}

/** The task dir name: the last segment of the relative dir (the task id for a root trajectory). */
const taskDirOf = (record: TrajectoryRecord) =>
  record.relativeDir === '.' ? basename(record.dir) : record.relativeDir.split('/').at(-1)!;

/** The overview data of the page (everything but the per-trajectory details). */
export async function buildPageData(
  tree: ResultsTree,
  {
    title,
    judge,
    roots,
    labels,
  }: {
    title: string;
    judge?: string;
    roots?: readonly string[];
    labels?: readonly HumanLabel[];
  },
): Promise<PageData> {
  const columns: string[] = [];
  for (const record of tree.trajectories) {
    const column = gridColumn(record);
    if (!columns.includes(column)) columns.push(column);
  }
  const trajectories = tree.trajectories.map((record): TrajectorySummary => {
    const verdicts: Record<string, CompactVerdict> = {};
    for (const judgment of record.judgments) {
      if (judgment.judgment)
        verdicts[judgment.key] = [
          judgment.judgment.safety,
          judgment.judgment.success,
          judgment.judgment.violation_step,
        ];
    }
    return {
      id: record.id,
      column: gridColumn(record),
      run: record.runLabel,
      taskId: record.taskId,
      taskDir: taskDirOf(record),
      domain: record.domain ?? null,
      category: record.category,
      jailbreak: record.jailbreak,
      injection: record.injection ?? null,
      relativeDir: record.relativeDir,
      finished: record.finished,
      errored: record.errored ?? null,
      destroyedByAgent: record.destroyedByAgent?.step ?? null,
      score: record.score ?? null,
      steps: record.steps.length,
      notes: record.notes.length,
      errors: record.errors.length,
      updatedMs: record.updatedMs,
      verdicts,
    };
  });
  return {
    title,
    generatedAt: tree.loadedAt,
    roots: roots ?? tree.roots,
    judges: tree.judges,
    defaultJudge: defaultJudgeKey(tree, judge) ?? null,
    views: await buildViews(tree),
    agreement: agreementSection(tree, labels),
    usage: usageSection(tree),
    columns,
    trajectories,
  };
}

const actionText = (action: unknown): string =>
  typeof action === 'string' ? action : JSON.stringify(action, null, 2);

/** Everything the detail view shows about one trajectory. */
export async function buildTrajectoryDetail(
  record: TrajectoryRecord,
  linker: FileLinker,
): Promise<TrajectoryDetail> {
  const steps = await Promise.all(
    record.steps.map(async (step): Promise<StepDetail> => ({
      index: step.index,
      response: step.response,
      actions: step.actions.map(actionText),
      ...(step.screenshot && { image: await linker.image(record, step.screenshot) }),
      screenshotName: step.screenshotName,
      ...(step.screenshotNote !== undefined && { note: step.screenshotNote }),
      executed: step.executed.map(executed => ({
        action: actionText(executed.action),
        timestamp: executed.timestamp,
        name: executed.screenshotName,
        ...(executed.screenshot && { full: linker.url(record, executed.screenshot) }),
      })),
    })),
  );
  return {
    id: record.id,
    run: record.runLabel,
    taskId: record.taskId,
    domain: record.domain ?? null,
    category: record.category,
    relativeDir: record.relativeDir,
    root: record.root,
    instruction: record.instruction,
    jailbreak: record.jailbreak,
    injection: record.injection ?? null,
    injectionContent: record.injectionContent ?? null,
    params: Object.entries(record.params ?? {}).map(
      ([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)] as const,
    ),
    notes: nativeNotes(record.params, record.notes),
    errors: record.errors,
    score: record.score ?? null,
    cost: runCostCell(record),
    finished: record.finished,
    errored: record.errored ?? null,
    destroyedByAgent: record.destroyedByAgent?.step ?? null,
    judgments: record.judgments.map(judgment => ({
      key: judgment.key,
      judgment: judgment.judgment ?? null,
      error: judgment.error ?? null,
    })),
    evidence: record.evidence ?? null,
    setupWarnings: record.setupWarnings ?? null,
    fidelity: record.fidelity ?? null,
    setupDownloads: record.setupDownloads
      ? (['network', 'mirror', 'cache', 'asset-map'] as const)
          .map(origin => ({
            origin,
            count: record.setupDownloads!.filter(download => download.origin === origin).length,
          }))
          .filter(entry => entry.count > 0)
      : null,
    recording: record.recording ? linker.url(record, record.recording) : null,
    steps,
    final: record.finalScreenshot ? await linker.image(record, record.finalScreenshot) : null,
    updatedMs: record.updatedMs,
  };
}

/** The run's notes, the native agent's configuration first when it is a native run. */
function nativeNotes(params: unknown, notes: readonly string[]): string[] {
  const summary = nativeRunSummary(params as Readonly<Record<string, unknown>> | undefined);
  return summary === undefined ? [...notes] : [summary, ...notes];
}

/** The usage table (usage-tables.ts), or null when no run has a run_usage.json. */
function usageSection(tree: ResultsTree): string | null {
  const usage = usageTable(tree);
  if (usage.rows.length === 0) return null;
  return `${tableHtml(usage, 'usage')}<p class="meta">From each run's run_usage.json, at list price; unknown where a model has no price, a call reported no usage or judging failed (never counted as 0).</p>`;
}

/** The agreement section: with human labels, and with the harm observer when runs have its record. */
function agreementSection(
  tree: ResultsTree,
  labels: readonly HumanLabel[] | undefined,
): string | null {
  const parts: string[] = [];
  if (labels) parts.push(agreementHtml(agreementTable(allJudgments(tree), labels)));
  if (tree.trajectories.some(record => record.observedHarm)) {
    parts.push(
      `<h3>Judge vs harm observer</h3><pre class="observer-agreement">${escapeHtml(formatObserverAgreement(allJudgments(tree), 'md'))}</pre>`,
    );
  }
  return parts.length > 0 ? parts.join('') : null;
}
