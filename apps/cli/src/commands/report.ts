import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { buildReport, loadResultsTree, type ReportFormat } from '@osharm/report';
import { REPORT_FORMATS } from '@osharm/report/internal';
import { escapeControlChars } from '@osharm/task-schema/artifacts';
import { ExitCode, handle, UsageError, type CliRun } from '../cli-io';
import { readLabelsFile } from './agreement';
import { fileLimitOptions, fileLimits, type FileLimitFlags } from '../file-limit-flags';

interface ReportFlags extends FileLimitFlags {
  out?: string;
  format?: ReportFormat;
  labels?: string;
  judge?: string;
  title?: string;
  embedImages?: boolean;
  thumbnails: boolean;
  thumbWidth: string;
}

const formatOfExtension: Record<string, ReportFormat> = {
  '.html': 'html',
  '.htm': 'html',
  '.md': 'md',
  '.csv': 'csv',
  '.json': 'json',
};

/** `osharm report RESULTS…`: a self-contained HTML report (or md / csv / json tables). */
export function reportCommand(run: CliRun): Command {
  const io = run.io;
  const command = new Command('report')
    .description(
      'write a report of one or more results dirs: a self-contained HTML page (headline table, injection heat map, charts, every trajectory step by step) or md / csv / json tables',
    )
    .argument('<results...>', 'results dirs; several (e.g. one per model) compare side by side')
    .option(
      '-o, --out <file>',
      'output file (default: report.html for html, stdout for the others)',
    )
    .addOption(
      new Option('--format <format>', 'output format (default: from --out, else html)').choices([
        ...REPORT_FORMATS,
      ]),
    )
    .option('--labels <file>', 'human labels (CSV or JSON): adds the judge agreement table')
    .option(
      '--judge <key>',
      'judge configuration of the headline, model/type/version, e.g. gpt-4.1/aer/v3 (default: the one that judged most trajectories; on a tie, gpt-4.1/aer/v3 when present)',
    )
    .option('--title <title>', 'page title', 'osharm report')
    .option(
      '--embed-images',
      'inline full-size screenshots too (the file then works anywhere; larger)',
    )
    .option('--no-thumbnails', 'no inlined thumbnails: steps show the linked full-size images')
    .option('--thumb-width <px>', 'thumbnail width in pixels', '320');
  for (const option of fileLimitOptions()) command.addOption(option);
  return command
    .addHelpText(
      'after',
      `
The HTML works offline, opened from disk. Full-size screenshots and recordings are linked by
paths relative to the output file, so keep it where the results tree can be reached from it
(or use --embed-images). The csv format has one row per trajectory × judgment.
Only regular files inside each trajectory dir are read, inlined or linked (no .., absolute path,
symlink, FIFO or device), each under the size caps; screenshots must be images by content.

Examples:
  osharm report results/ --out report.html
  osharm report results-gpt/ results-claude/ --labels labels.csv --out compare.html
  osharm report results/ --format md > report.md`,
    )
    .action(
      handle(run, async (results: string[], flags: ReportFlags) => {
        const format =
          flags.format ??
          (flags.out ? formatOfExtension[extname(flags.out).toLowerCase()] : undefined) ??
          'html';
        const thumbWidth = Number(flags.thumbWidth);
        if (!Number.isInteger(thumbWidth) || thumbWidth < 16 || thumbWidth > 1920)
          throw new UsageError(
            `--thumb-width must be an integer from 16 to 1920, got ${flags.thumbWidth}`,
          );
        const labels = flags.labels ? await readLabelsFile(flags.labels, io) : undefined;
        const started = performance.now();
        let tree;
        try {
          tree = await loadResultsTree(results, { cwd: io.cwd, limits: fileLimits(flags) });
        } catch (error) {
          throw new UsageError((error as Error).message);
        }
        if (tree.trajectories.length === 0) {
          io.stderr(
            `error: no trajectory (dir with better_log.json) under ${results.map(result => escapeControlChars(result)).join(', ')}\n`,
          );
          return ExitCode.invalidData;
        }
        if (flags.judge && !tree.judges.some(judge => judge.key === flags.judge)) {
          throw new UsageError(
            `no judgment of ${flags.judge} found; found: ${tree.judges.map(judge => judge.key).join(', ') || 'none'}`,
          );
        }
        const out =
          flags.out !== undefined
            ? resolve(io.cwd, flags.out)
            : format === 'html'
              ? resolve(io.cwd, 'report.html')
              : undefined;
        const text = await buildReport(tree, {
          format,
          title: flags.title ?? 'osharm report',
          baseDir: out ? dirname(out) : io.cwd,
          ...(flags.judge !== undefined && { judge: flags.judge }),
          ...(labels && { labels }),
          ...(flags.embedImages && { embedImages: true }),
          thumbnails: flags.thumbnails ? { width: thumbWidth } : false,
        });
        if (!out) {
          io.stdout(text);
          return ExitCode.ok;
        }
        await mkdir(dirname(out), { recursive: true });
        await writeFile(out, text);
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        const megabytes = (Buffer.byteLength(text) / 1024 / 1024).toFixed(1);
        io.stdout(
          `wrote ${out} (${format}, ${megabytes} MB, ${tree.trajectories.length} trajectories, ${seconds} s)\n`,
        );
        return ExitCode.ok;
      }),
    );
}
