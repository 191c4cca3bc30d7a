import { Command, Option } from 'commander';
import { mergeResults, type MergeReport } from '@osharm/runner';
import { ExitCode, handle, type CliIo, type CliRun } from '../cli-io';
import { displayPath } from '../dataset-options';

/** Flags of `osharm merge`. */
interface MergeFlags {
  into: string;
  prefer?: 'first' | 'newest';
  dryRun?: boolean;
}

/** `osharm merge`: results trees of several shards or machines into one tree. */
export function mergeCommand(run: CliRun): Command {
  return new Command('merge')
    .description(
      'merge results trees (the shards of osharm run --shard K/N, or runs from several machines) into one tree of the same layout',
    )
    .argument('<dirs...>', 'results trees (each an osharm run --result-dir)')
    .requiredOption(
      '--into <dir>',
      'the merged tree (created when absent; what it holds counts as the first input)',
    )
    .addOption(
      new Option(
        '--prefer <which>',
        'two finished copies of a run that differ: keep the first (--into, then input order) or the newest result.txt (default: a conflict, nothing written)',
      ).choices(['first', 'newest']),
    )
    .option('--dry-run', 'print what would be merged; write nothing')
    .addHelpText(
      'after',
      `
Per run dir: a finished copy (result.txt holds a score) beats an errored or unfinished one;
identical finished copies count once; finished copies that differ are a conflict (both paths
named, exit 1, nothing written) unless --prefer. Judgments and captions come along with their
run dir; batch results files (batch_judgment_results_*.json) are not merged: judge the merged
tree (osharm judge / osharm-batch-judge reuse each run's judgment). Symlinks and special files
in the inputs are never followed or copied.
Exit codes: 0 merged (or nothing to merge), 1 conflicts or an unsafe path in --into, 2 usage
(a missing input, inputs overlapping --into).`,
    )
    .action(handle(run, (dirs: string[], flags: MergeFlags) => mergeAction(dirs, flags, run.io)));
}

async function mergeAction(dirs: string[], flags: MergeFlags, io: CliIo): Promise<number> {
  const report = await mergeResults({
    inputs: dirs,
    into: flags.into,
    ...(flags.prefer ? { prefer: flags.prefer } : {}),
    dryRun: flags.dryRun === true,
    cwd: io.cwd,
  });
  printReport(report, flags, io);
  return report.conflicts.length > 0 ? ExitCode.invalidData : ExitCode.ok;
}

function printReport(report: MergeReport, flags: MergeFlags, io: CliIo): void {
  const show = (path: string) => displayPath(io, path);
  const into = show(flags.into);
  for (const conflict of report.conflicts)
    io.stderr(
      `conflict: ${conflict.run}: finished copies differ: ${conflict.paths.map(show).join(' and ')} (keep one with --prefer first|newest)\n`,
    );
  if (report.conflicts.length > 0) {
    io.stderr(`${report.conflicts.length} conflict(s): nothing written to ${into}\n`);
    return;
  }
  for (const run of report.merged)
    io.stdout(
      `merge ${run.run} (${run.state}) from ${show(run.from)}${run.replaces ? ` (replaces the ${run.replaces} copy)` : ''}\n`,
    );
  for (const skip of report.skipped)
    io.stdout(`skip  ${skip.run} from ${show(skip.from)}: ${skip.reason}\n`);
  for (const run of report.merged)
    for (const entry of run.refused)
      io.stderr(`not copied (symlink or special file): ${show(run.from)}/${run.run}/${entry}\n`);
  for (const file of report.notMerged)
    io.stdout(`not merged: ${show(file)} (batch results: judge the merged tree)\n`);
  const count = (state: string) => report.merged.filter(run => run.state === state).length;
  io.stdout(
    `${flags.dryRun ? 'dry run: would merge' : 'merged'} ${report.merged.length} run dir(s) into ${into} (finished ${count('finished')}, errored ${count('errored')}, unfinished ${count('unfinished')}); skipped ${report.skipped.length} copy(ies)\n`,
  );
}
