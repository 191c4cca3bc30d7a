import { InvalidArgumentError, Option } from 'commander';
import { DEFAULT_FILE_LIMITS, type TrajectoryFileLimits } from '@osharm/task-schema/trajectory';

const MiB = 1024 * 1024;

/** The size-cap flags of `osharm report` and `osharm view` (the same as `osharm judge`'s). */
export interface FileLimitFlags {
  maxImageMb: number;
  maxLogMb: number;
}

const megabytes = (value: string): number => {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number <= 0 || number > 1024 * 1024)
    throw new InvalidArgumentError('expected a number of MiB > 0.');
  return number;
};

/** `--max-image-mb` and `--max-log-mb`, with the defaults of `DEFAULT_FILE_LIMITS`. */
export function fileLimitOptions(): Option[] {
  return [
    new Option(
      '--max-image-mb <MiB>',
      'screenshots larger than this are not read (shown as missing)',
    )
      .argParser(megabytes)
      .default(DEFAULT_FILE_LIMITS.maxImageBytes / MiB),
    new Option(
      '--max-log-mb <MiB>',
      'better_log.json, traj.jsonl, judgments larger than this are not read (a note on the trajectory)',
    )
      .argParser(megabytes)
      .default(DEFAULT_FILE_LIMITS.maxTextBytes / MiB),
  ];
}

/** The caps the flags ask for. */
export function fileLimits(flags: FileLimitFlags): TrajectoryFileLimits {
  return { maxImageBytes: flags.maxImageMb * MiB, maxTextBytes: flags.maxLogMb * MiB };
}
