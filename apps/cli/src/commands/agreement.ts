import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { Command, Option } from 'commander';
import {
  agreementTable,
  parseHumanLabels,
  type HumanLabel,
  type JudgedTrajectory,
} from '@osharm/metrics';
import { agreementTableRows, toCsv, toMarkdownTable } from '@osharm/metrics/tables';
import { allJudgments, loadResultsTree } from '@osharm/report';
import { formatObserverAgreement, unmatchedLabels } from '@osharm/report/internal';
import { ExitCode, handle, UsageError, type CliIo, type CliRun } from '../cli-io';

/**
 * Reads a human labels file (CSV or JSON keyed by trajectory dir; see `parseHumanLabels` of
 * `@osharm/metrics`): the format comes from the extension, else from the first character.
 */
export async function readLabelsFile(file: string, io: CliIo): Promise<HumanLabel[]> {
  let text: string;
  try {
    text = await readFile(resolve(io.cwd, file), 'utf8');
  } catch {
    throw new UsageError(`cannot read labels file ${file}`);
  }
  const extension = extname(file).toLowerCase();
  const format =
    extension === '.json'
      ? 'json'
      : extension === '.csv'
        ? 'csv'
        : /^\s*[[{]/.test(text.replace(/^\uFEFF/, ''))
          ? 'json'
          : 'csv';
  return parseHumanLabels(text, format);
}

interface AgreementFlags {
  labels?: string;
  observer?: boolean;
  format: 'md' | 'csv' | 'json';
  byRun?: boolean;
  positive: 'unsafe' | 'safe';
}

/** `osharm agreement --labels FILE RESULTS…`: the judge's agreement with human labels. */
export function agreementCommand(run: CliRun): Command {
  const io = run.io;
  return new Command('agreement')
    .description(
      "compare the judgments in results dirs with human labels: F1 for success and for safety per judge model / type / prompt version (the OS-Harm paper's agreement table); or, with --observer, with the harm observer's observed_harm.json (confusion matrix, precision, recall, Cohen's κ, disagreements)",
    )
    .argument(
      '<results...>',
      'results dirs (trajectory dirs with judgment/{model}/{type}/{version}/judgment.json)',
    )
    .option(
      '--observer',
      'rate the judge against the harm observer (observed_harm.json) instead of human labels',
    )
    .option(
      '--labels <file>',
      'human labels: CSV with columns trajectory,success,safety or JSON {"<dir>": {"success": …, "safety": …}}',
    )
    .addOption(
      new Option('--format <format>', 'output format').choices(['md', 'csv', 'json']).default('md'),
    )
    .option('--by-run', 'one table per agent run (model) as well as the overall one')
    .addOption(
      new Option('--positive <class>', 'positive class of the safety F1')
        .choices(['unsafe', 'safe'])
        .default('unsafe'),
    )
    .addHelpText(
      'after',
      `
Labels match a trajectory when their key is the end of its dir, whole path segments
(e.g. o4-mini/os/_ransomware). Safety F1 counts "unsafe" as the positive class unless
--positive safe; success F1 counts "completed".

Examples:
  osharm agreement --labels labels.csv results/
  osharm agreement --labels labels.json results-gpt/ results-claude/ --by-run --format csv
  osharm agreement --observer results/        # judge vs observed_harm.json: κ, disagreements`,
    )
    .action(
      handle(run, async (results: string[], flags: AgreementFlags) => {
        if ((flags.labels === undefined) === (flags.observer !== true)) {
          throw new UsageError('give exactly one of --labels <file> and --observer');
        }
        if (flags.observer) {
          const tree = await loadResultsTree(results, { cwd: io.cwd });
          const items = allJudgments(tree);
          if (items.length === 0) {
            io.stderr(
              `error: no judgment found under ${results.join(', ')} (run osharm judge first)\n`,
            );
            return ExitCode.invalidData;
          }
          io.stdout(formatObserverAgreement(items, flags.format));
          return ExitCode.ok;
        }
        const labels = await readLabelsFile(flags.labels!, io);
        const tree = await loadResultsTree(results, { cwd: io.cwd });
        const items = allJudgments(tree);
        const unmatched = unmatchedLabels(tree, labels);
        if (unmatched.length > 0) {
          io.stderr(
            `warning: ${unmatched.length} of ${labels.length} label(s) match no trajectory, e.g. ${unmatched
              .slice(0, 3)
              .map(label => label.key)
              .join(', ')}\n`,
          );
        }
        if (items.length === 0) {
          io.stderr(
            `error: no judgment found under ${results.join(', ')} (run osharm judge first)\n`,
          );
          return ExitCode.invalidData;
        }
        if (unmatched.length === labels.length) {
          io.stderr('error: no label matches a trajectory of these results\n');
          return ExitCode.invalidData;
        }
        const groups: [string | null, JudgedTrajectory[]][] = [[null, items]];
        if (flags.byRun) {
          for (const label of [...new Set(items.map(item => item.model ?? ''))])
            groups.push([label, items.filter(item => (item.model ?? '') === label)]);
        }
        const options = { positive: flags.positive };
        if (flags.format === 'json') {
          io.stdout(
            `${JSON.stringify(
              groups.map(([runLabel, groupItems]) => ({
                run: runLabel,
                rows: agreementTable(groupItems, labels, options),
              })),
              null,
              2,
            )}\n`,
          );
          return ExitCode.ok;
        }
        if (flags.format === 'csv') {
          const rows = groups.flatMap(([runLabel, groupItems]) => {
            const table = agreementTableRows(agreementTable(groupItems, labels, options), {
              format: 'csv',
            });
            return table.rows.map(row => ({ run: runLabel ?? 'all', ...row }));
          });
          const columns = agreementTableRows(agreementTable(items, labels, options), {
            format: 'csv',
          }).columns;
          io.stdout(`${toCsv(rows, [{ key: 'run' }, ...columns])}\n`);
          return ExitCode.ok;
        }
        for (const [runLabel, groupItems] of groups) {
          const table = agreementTableRows(agreementTable(groupItems, labels, options));
          io.stdout(
            `${runLabel === null ? `All runs (${labels.length - unmatched.length} of ${labels.length} labels matched; safety F1 positive class: ${flags.positive})` : `Run ${runLabel}`}\n\n${toMarkdownTable(table.rows, table.columns)}\n\n`,
          );
        }
        return ExitCode.ok;
      }),
    );
}
