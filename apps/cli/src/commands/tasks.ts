import { resolve } from 'node:path';
import { Command } from 'commander';
import {
  expandInjectionRuns,
  formatIssue,
  summarizeDataset,
  validateDataset,
  type DatasetReport,
  type DatasetTask,
  type Evaluator,
  type ValidationIssue,
} from '@osharm/task-schema';
import { ExitCode, handle, type CliIo, type CliRun } from '../cli-io';
import {
  addDatasetOptions,
  displayPath,
  resolveDataset,
  type DatasetFlags,
} from '../dataset-options';
import { formatTable } from '../table';
import { tasksCheckCommand } from './tasks-check';

interface JsonFlag {
  json?: boolean;
}

async function loadReport(flags: DatasetFlags, io: CliIo) {
  const dataset = await resolveDataset(flags, io);
  // Paths in the report stay as the user wrote them (relative to the working dir).
  const at = (path: string) => resolve(io.cwd, path);
  const report = await validateDataset({
    baseDir: at(dataset.baseDir),
    indexPaths: dataset.indexPaths.map(at),
    domain: dataset.domain,
  });
  const relative = (file: string) => displayPath(io, file);
  return {
    dataset,
    report: {
      ...report,
      tasks: report.tasks.map(task => ({
        ...task,
        file: relative(task.file),
        indexFile: relative(task.indexFile),
      })),
      issues: report.issues.map(issue => ({ ...issue, file: relative(issue.file) })),
      indexes: report.indexes.map(index => ({ ...index, file: relative(index.file) })),
    } satisfies DatasetReport,
  };
}

const errorsOf = (issues: readonly ValidationIssue[]) =>
  issues.filter(issue => issue.severity === 'error');
const warningsOf = (issues: readonly ValidationIssue[]) =>
  issues.filter(issue => issue.severity === 'warning');

/** `compare_text_file`, or `exact_match and check_include_exclude` for lists. */
function describeEvaluator(evaluator: Evaluator): string {
  if (!Array.isArray(evaluator.func)) return evaluator.func;
  return evaluator.func.join(` ${evaluator.conj ?? 'and'} `);
}

function countBy<T>(items: readonly T[], key: (item: T) => string): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].map(([name, count]) => `${name} ${count}`).join(', ');
}

function validateCommand(run: CliRun): Command {
  const io = run.io;
  return addDatasetOptions(new Command('validate'))
    .description('check index files and every task file they list; exit 1 if any is invalid')
    .option('--json', 'print the report as JSON')
    .option(
      '--verbose',
      'print every warning (by default warnings with the same message are grouped)',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ osharm tasks validate
  $ osharm tasks validate --test-config-base-dir ../os-harm/evaluation_examples
  $ osharm tasks validate --test_all_meta_path evaluation_examples/test_misuse.json --domain os`,
    )
    .action(
      handle(run, async (flags: DatasetFlags & JsonFlag & { verbose?: boolean }) => {
        const { report } = await loadReport(flags, io);
        const errors = errorsOf(report.issues);
        const warnings = warningsOf(report.issues);
        const summary = summarizeDataset(report.tasks);
        if (flags.json) {
          io.stdout(
            `${JSON.stringify(
              {
                ok: errors.length === 0,
                indexes: report.indexes.map(index => index.file),
                tasks: report.tasks.length,
                errors,
                warnings,
                summary,
              },
              null,
              2,
            )}\n`,
          );
        } else {
          for (const issue of errors) io.stdout(`error: ${formatIssue(issue)}\n`);
          printWarnings(warnings, io, flags.verbose === true);
          for (const { file } of report.indexes) {
            const tasks = report.tasks.filter(task => task.indexFile === file);
            io.stdout(
              `${file}: ${tasks.length} valid task(s)${tasks.length ? ` (${countBy(tasks, task => task.category)})` : ''}\n`,
            );
          }
          if (summary.injectionTasks > 0) {
            io.stdout(
              `injection: ${summary.injectionTasks} task(s) list ${summary.injectionRunsListed} (vector, goal) pair(s) = ${summary.injectionRuns} unique run(s)\n`,
            );
          }
          io.stdout(
            `${errors.length === 0 ? 'ok' : 'invalid'}: ${report.tasks.length} valid task(s) in ${report.indexes.length} index file(s); ${errors.length} error(s), ${warnings.length} warning(s)\n`,
          );
        }
        return errors.length === 0 ? ExitCode.ok : ExitCode.invalidData;
      }),
    );
}

/** Prints warnings; those sharing a message are grouped, showing a few places unless verbose. */
function printWarnings(warnings: readonly ValidationIssue[], io: CliIo, verbose: boolean) {
  if (verbose) {
    for (const issue of warnings) io.stdout(`warning: ${formatIssue(issue)}\n`);
    return;
  }
  const groups = new Map<string, ValidationIssue[]>();
  for (const issue of warnings)
    groups.set(issue.message, [...(groups.get(issue.message) ?? []), issue]);
  for (const [message, issues] of groups) {
    if (issues.length === 1) {
      io.stdout(`warning: ${formatIssue(issues[0]!)}\n`);
      continue;
    }
    io.stdout(`warning: ${message} (${issues.length} places)\n`);
    for (const issue of issues.slice(0, 2)) io.stdout(`  at ${issue.file}: ${issue.path}\n`);
    if (issues.length > 2) io.stdout(`  … and ${issues.length - 2} more (--verbose lists all)\n`);
  }
}

function taskRow(task: DatasetTask) {
  return {
    domain: task.domain,
    id: task.id,
    category: task.category,
    snapshot: task.config.snapshot,
    evaluator: describeEvaluator(task.config.evaluator),
  };
}

function reportSkipped(report: DatasetReport, io: CliIo): number {
  const errors = errorsOf(report.issues);
  if (errors.length === 0) return ExitCode.ok;
  io.stderr(
    `${errors.length} error(s) in the dataset; invalid tasks are left out (details: osharm tasks validate):\n`,
  );
  for (const issue of errors.slice(0, 5)) io.stderr(`  ${formatIssue(issue)}\n`);
  if (errors.length > 5) io.stderr(`  … and ${errors.length - 5} more\n`);
  return ExitCode.invalidData;
}

function listCommand(run: CliRun): Command {
  const io = run.io;
  return addDatasetOptions(new Command('list'))
    .description('list tasks: domain, id, category, snapshot, evaluator')
    .option('--json', 'print a JSON array (one object per task, with instruction and file)')
    .addHelpText(
      'after',
      `
Examples:
  $ osharm tasks list
  $ osharm tasks list --test-all-meta-path evaluation_examples/test_injection.json --json`,
    )
    .action(
      handle(run, async (flags: DatasetFlags & JsonFlag) => {
        const { report } = await loadReport(flags, io);
        if (flags.json) {
          const rows = report.tasks.map(task => ({
            ...taskRow(task),
            instruction: task.config.instruction,
            file: task.file,
            index: task.indexFile,
            ...(task.config.injections
              ? { injection_runs: expandInjectionRuns(task.config).runs.map(run => run.dirSuffix) }
              : {}),
          }));
          io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
        } else {
          const rows = report.tasks.map(task => Object.values(taskRow(task)));
          io.stdout(formatTable(['DOMAIN', 'ID', 'CATEGORY', 'SNAPSHOT', 'EVALUATOR'], rows));
          io.stdout(`${report.tasks.length} task(s)\n`);
        }
        return reportSkipped(report, io);
      }),
    );
}

function showCommand(run: CliRun): Command {
  const io = run.io;
  return addDatasetOptions(new Command('show'))
    .description('print one task: where it is, its category, injection runs, and its JSON')
    .argument('<id>', 'task id, e.g. _phishing_letter')
    .option('--json', 'print only the task JSON')
    .action(
      handle(run, async (id: string, flags: DatasetFlags & JsonFlag) => {
        const { report } = await loadReport(flags, io);
        const matches = report.tasks.filter(task => task.id === id);
        if (matches.length === 0) {
          const problems = report.issues.filter(
            issue =>
              issue.severity === 'error' &&
              (issue.file.endsWith(`/${id}.json`) || issue.message.includes(`"${id}"`)),
          );
          if (problems.length > 0) {
            io.stderr(
              `task "${id}" is invalid:\n${problems.map(issue => `  ${formatIssue(issue)}\n`).join('')}`,
            );
          } else {
            io.stderr(
              `task "${id}" is not listed in ${report.indexes.map(index => index.file).join(', ')}\n`,
            );
          }
          return ExitCode.invalidData;
        }
        for (const task of matches) {
          if (flags.json) {
            io.stdout(`${JSON.stringify(task.config, null, 2)}\n`);
            continue;
          }
          const lines = [
            `id:        ${task.id}`,
            `domain:    ${task.domain}`,
            `category:  ${task.category}`,
            `snapshot:  ${task.config.snapshot}`,
            `evaluator: ${describeEvaluator(task.config.evaluator)}`,
            `file:      ${task.file}`,
            `index:     ${task.indexFile}`,
          ];
          if (task.config.injections) {
            const expansion = expandInjectionRuns(task.config);
            lines.push(
              `injection runs (${expansion.runs.length} unique of ${expansion.listed} listed):`,
            );
            for (const run of expansion.runs) lines.push(`  ${task.id}${run.dirSuffix}`);
          }
          io.stdout(`${lines.join('\n')}\n\n${JSON.stringify(task.config, null, 2)}\n`);
        }
        return ExitCode.ok;
      }),
    );
}

/** `osharm tasks …`: validate, list and show task configs. */
export function tasksCommand(run: CliRun): Command {
  return new Command('tasks')
    .description('validate, list, show and check task configs (upstream format)')
    .addCommand(validateCommand(run))
    .addCommand(listCommand(run))
    .addCommand(showCommand(run))
    .addCommand(tasksCheckCommand(run));
}
