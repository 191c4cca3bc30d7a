import { redactSecrets } from '@osharm/task-schema/artifacts';
import { agreementTable, headlineTable, injectionHeatMap, injectionSuccess } from '@osharm/metrics';
import { formatObserverAgreement } from './observer-agreement-text';
import {
  agreementTableRows,
  headlineTableRows,
  injectionHeatMapRows,
  toCsv,
  toMarkdownTable,
  type TableRow,
} from '@osharm/metrics/tables';
import { headlineFidelity, headlineFidelityLines } from './headline-fidelity';
import { judgesTable } from './judges-table';
import { renderHtmlReport, type HtmlReportOptions } from './report-html';
import {
  allJudgments,
  defaultJudgeKey,
  judgedTrajectories,
  judgingStatus,
  judgmentOf,
  runLabels,
} from './report-items';
import { gridColumn } from './report-page';
import type { ResultsTree } from './results-tree';
import { runCostCell, usageTable } from './usage-tables';

/** Output formats of {@link buildReport}. */
export const REPORT_FORMATS = ['html', 'md', 'csv', 'json'] as const;
/** One of {@link REPORT_FORMATS}. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** Options of {@link buildReport}. */
export interface BuildReportOptions extends HtmlReportOptions {
  /**
   * `html`: the self-contained page; `md`: headline, injection and trajectory tables in GitHub
   * markdown; `csv`: one row per trajectory × judgment (long form, for analysis); `json`: the
   * headline rows, injection rates and every trajectory record.
   * @default 'html'
   */
  readonly format?: ReportFormat;
}

/**
 * Renders a loaded results tree (see `loadResultsTree`) as a report. Numbers come from
 * `@osharm/metrics` (`headlineTable`, `injectionSuccess`, `agreementTable`) over the judgments of
 * the chosen judge configuration (`options.judge`, else the most frequent one).
 */
export async function buildReport(
  tree: ResultsTree,
  options: BuildReportOptions = {},
): Promise<string> {
  const format = options.format ?? 'html';
  switch (format) {
    case 'html':
      return renderHtmlReport(tree, options);
    // key-shaped strings of the tree are redacted, as in the judge's files
    case 'md':
      return redactSecrets(markdownReport(tree, options));
    case 'csv':
      return redactSecrets(csvReport(tree));
    case 'json':
      return redactSecrets(jsonReport(tree, options));
    default:
      throw new Error(`unknown report format ${JSON.stringify(format)} (html, md, csv or json)`);
  }
}

function markdownReport(tree: ResultsTree, options: BuildReportOptions): string {
  const judge = defaultJudgeKey(tree, options.judge);
  const items = judgedTrajectories(tree, judge);
  const lines: string[] = [
    `# ${options.title ?? 'osharm report'}`,
    '',
    `${tree.trajectories.length} trajectories from ${tree.roots.map(root => `\`${root}\``).join(', ')}, read ${tree.loadedAt}.`,
    '',
    judge
      ? `Judge: \`${judge}\`${
          tree.judges.length > 1
            ? ` (also found: ${tree.judges
                .filter(other => other.key !== judge)
                .map(other => `\`${other.key}\``)
                .join(', ')})`
            : ''
        }. Judge prompts: ${tree.judges.find(each => each.key === judge)?.promptFamily ?? 'not recorded'}.`
      : (judgingStatus(tree) ?? ''),
    '',
  ];
  if (tree.judges.length > 1 || tree.judges.some(judge => judge.normalised > 0)) {
    const judges = judgesTable(tree);
    lines.push(
      '## Judges',
      '',
      'Each judge configuration found, with what made its verdicts; rates are never pooled across rows.',
      '',
      toMarkdownTable(judges.rows, judges.columns),
      '',
    );
  }
  lines.push('## Headline', '');
  const headline = headlineTableRows(headlineTable(items));
  lines.push(toMarkdownTable(headline.rows, headline.columns), '');
  const faithful = headlineFidelityLines(headlineTable(items), headlineFidelity(items));
  if (faithful.length > 0) lines.push(...faithful, '');
  const destroyed = tree.trajectories.filter(record => record.destroyedByAgent);
  if (destroyed.length > 0) {
    lines.push(
      `Desktop destroyed by the agent: ${destroyed.length} run(s) — no evaluator score; judged on the trajectory up to that step and counted in the rates above.`,
      '',
    );
  }
  const runs = runLabels(tree);
  const injected = items.filter(item => item.injection);
  if (injected.length > 0) {
    lines.push('## Injection: unsafe % by vector × goal', '');
    for (const run of runs) {
      const runItems = injected.filter(item => item.model === run);
      if (runItems.length === 0) continue;
      const table = injectionHeatMapRows(injectionHeatMap(injectionSuccess(runItems)));
      lines.push(`### ${run}`, '', toMarkdownTable(table.rows, table.columns), '');
    }
  }
  if (options.labels) {
    const agreement = agreementTableRows(agreementTable(allJudgments(tree), options.labels));
    lines.push(
      '## Judge agreement with human labels',
      '',
      toMarkdownTable(agreement.rows, agreement.columns),
      '',
    );
  }
  if (tree.trajectories.some(record => record.observedHarm)) {
    lines.push(
      '## Judge agreement with the harm observer',
      '',
      formatObserverAgreement(allJudgments(tree), 'md'),
    );
  }
  const usage = usageTable(tree);
  if (usage.rows.length > 0) {
    lines.push(
      '## Model usage and cost',
      '',
      "From each run's run_usage.json, at list price; `unknown` where a model has no price, a call reported no usage or judging failed (never counted as 0).",
      '',
      toMarkdownTable(usage.rows, usage.columns),
      '',
    );
  }
  lines.push('## Trajectories', '');
  const rows: TableRow[] = tree.trajectories.map(record => {
    // An errored run has no verdict: its reason stands in the verdict column.
    const judgment = record.errored === undefined ? judgmentOf(record, judge)?.judgment : undefined;
    return {
      run: gridColumn(record),
      category: record.category,
      domain: record.domain ?? null,
      task: record.relativeDir.split('/').at(-1) ?? record.taskId,
      verdict:
        record.errored !== undefined
          ? `errored: ${record.errored}`
          : judgment
            ? `${judgment.safety ? 'safe' : 'unsafe'}${record.destroyedByAgent ? ` (desktop destroyed by the agent after step ${record.destroyedByAgent.step})` : ''}`
            : record.destroyedByAgent
              ? `desktop destroyed by the agent after step ${record.destroyedByAgent.step} (not judged yet)`
              : null,
      completed: judgment ? (judgment.success ? 'yes' : 'no') : null,
      violation: judgment?.violation_step ?? null,
      score: record.score ?? null,
      steps: record.steps.length,
      cost: runCostCell(record),
      notes: record.notes.length + record.errors.length,
    };
  });
  lines.push(
    toMarkdownTable(rows, [
      { key: 'run' },
      { key: 'category' },
      { key: 'domain' },
      { key: 'task' },
      { key: 'verdict' },
      { key: 'completed' },
      { key: 'violation', title: 'violation step', align: 'right' },
      { key: 'score', align: 'right' },
      { key: 'steps', align: 'right' },
      { key: 'cost', align: 'right' },
      { key: 'notes', align: 'right' },
    ]),
    '',
  );
  return lines.join('\n');
}

const csvColumns = [
  'run',
  'model',
  'jailbreak',
  'category',
  'domain',
  'task_id',
  'vector',
  'goal',
  'observation_type',
  'action_space',
  'judge_model',
  'judge_type',
  'prompt_version',
  'judge',
  'judge_provenance',
  'safety',
  'success',
  'violation_step',
  'score',
  'finished',
  'errored',
  'destroyed_by_agent_at_step',
  'steps',
  'errors',
  'notes',
  'evidence_triggered',
  'run_calls',
  'run_input_tokens',
  'run_cached_input_tokens',
  'run_cache_write_tokens',
  'run_output_tokens',
  'run_reasoning_tokens',
  'run_cost_usd',
  'dir',
].map(key => ({ key }));

function csvReport(tree: ResultsTree): string {
  const rows: TableRow[] = [];
  for (const record of tree.trajectories) {
    const base = {
      run: record.runLabel,
      model: record.model,
      jailbreak: record.jailbreak,
      category: record.category,
      domain: record.domain ?? null,
      task_id: record.taskId,
      vector: record.injection?.vector ?? null,
      goal: record.injection?.goal ?? null,
      observation_type: record.observationType ?? null,
      action_space: record.actionSpace ?? null,
      score: record.score ?? null,
      finished: record.finished,
      errored: record.errored ?? null,
      destroyed_by_agent_at_step: record.destroyedByAgent?.step ?? null,
      steps: record.steps.length,
      errors: record.errors.length,
      notes: record.notes.length,
      evidence_triggered:
        record.evidence?.goals.find(goal => goal.goal === record.injection?.goal)?.triggered ??
        null,
      ...runUsageColumns(record),
      dir: record.dir,
    };
    // An errored run has no verdict: one row with its reason, none per judgment.
    const judged =
      record.errored === undefined ? record.judgments.filter(judgment => judgment.judgment) : [];
    if (judged.length === 0) rows.push(base);
    for (const judgment of judged)
      rows.push({
        ...base,
        judge_model: judgment.judgeModel,
        judge_type: judgment.judgeType,
        prompt_version: judgment.promptVersion,
        judge: judgment.key,
        judge_provenance: judgment.provenanceLabel,
        safety: judgment.judgment!.safety,
        success: judgment.judgment!.success,
        violation_step: judgment.judgment!.violation_step,
      });
  }
  return `${toCsv(rows, csvColumns)}\n`;
}

/**
 * The run's run_usage.json summed over its roles (repeated on each judgment row of the run). No record:
 * empty cells; a cost not known: `unknown` (never 0 or empty).
 */
function runUsageColumns(record: ResultsTree['trajectories'][number]): TableRow {
  if (!record.usage) return {};
  const roles = Object.values(record.usage.roles);
  const total = (key: 'calls' | 'input_tokens' | 'output_tokens') =>
    roles.reduce((sum, role) => sum + role[key], 0);
  const part = (key: 'cached_input_tokens' | 'cache_write_tokens' | 'reasoning_tokens') =>
    roles.reduce((sum, role) => sum + (role[key] ?? 0), 0);
  return {
    run_calls: total('calls'),
    run_input_tokens: total('input_tokens'),
    run_cached_input_tokens: part('cached_input_tokens'),
    run_cache_write_tokens: part('cache_write_tokens'),
    run_output_tokens: total('output_tokens'),
    run_reasoning_tokens: part('reasoning_tokens'),
    run_cost_usd: record.usage.cost_usd ?? 'unknown',
  };
}

function jsonReport(tree: ResultsTree, options: BuildReportOptions): string {
  const judge = defaultJudgeKey(tree, options.judge);
  const items = judgedTrajectories(tree, judge);
  const injection = Object.fromEntries(
    runLabels(tree)
      .map(run => [run, items.filter(item => item.model === run && item.injection)] as const)
      .filter(([, runItems]) => runItems.length > 0)
      .map(([run, runItems]) => [run, injectionSuccess(runItems)]),
  );
  return `${JSON.stringify(
    {
      title: options.title ?? 'osharm report',
      loadedAt: tree.loadedAt,
      roots: tree.roots,
      judge: judge ?? null,
      judges: tree.judges,
      headline: headlineTable(items),
      injection,
      usage: usageTable(tree).rows,
      ...(options.labels && { agreement: agreementTable(allJudgments(tree), options.labels) }),
      trajectories: tree.trajectories,
    },
    null,
    2,
  )}\n`;
}
