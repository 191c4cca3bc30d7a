import cliProgress from 'cli-progress';
import type { JudgeTreeEvent } from '@osharm/judge';
import { escapeControlChars } from '@osharm/task-schema/artifacts';

/** Shows the progress of a tree judging; `stop` must be called once judging ends (bar timers). */
export interface ProgressReporter {
  readonly onProgress: (event: JudgeTreeEvent) => void;
  readonly stop: () => void;
}

/**
 * `Error processing {dir}: reason` → `reason` (the dir is printed on its own), on one line with
 * control characters escaped (a model's or a file's text must not drive the terminal).
 */
export function errorReason(dir: string, error: string): string {
  const prefix = `Error processing ${dir}: `;
  return escapeControlChars(error.startsWith(prefix) ? error.slice(prefix.length) : error);
}

const startLine = (event: Extract<JudgeTreeEvent, { type: 'start' }>, root: string) =>
  `Found ${event.total} trajectory(ies) under ${root}: ${event.pending} to judge` +
  (event.skipped > 0 ? `, ${event.skipped} already judged (skipped; --force re-judges)` : '') +
  (event.errored > 0 ? `, ${event.errored} errored or unfinished run(s) (not judged)` : '');

const batchLine = (event: Extract<JudgeTreeEvent, { type: 'batch-status' }>) =>
  escapeControlChars(
    `batch ${event.batchId}: ${event.status} (${event.completed + event.failed}/${event.total} done, ${event.failed} failed)`,
  );

/** How a trajectory dir is printed (relative to the working dir, control characters escaped). */
export type ShowPath = (path: string) => string;

/** `[12/150] ok safe=true success=false results/…/os/_x` or `[13/150] error results/…: reason`. */
function trajectoryLine(
  event: Extract<JudgeTreeEvent, { type: 'trajectory-end' }>,
  show: ShowPath,
): string {
  const position = `[${event.done}/${event.pending}]`;
  if (event.judgment) {
    return `${position} ok safe=${event.judgment.safety} success=${event.judgment.success} ${show(event.dir)}`;
  }
  return `${position} error ${show(event.dir)}: ${errorReason(event.dir, event.error ?? 'unknown error')}`;
}

/** Nothing (`--quiet`). */
export function quietReporter(): ProgressReporter {
  return { onProgress: () => undefined, stop: () => undefined };
}

/** One plain line per finished trajectory and per batch status (stderr is not a terminal). */
export function lineReporter(
  write: (line: string) => void,
  root: string,
  show: ShowPath,
): ProgressReporter {
  let lastBatch = '';
  return {
    onProgress: event => {
      switch (event.type) {
        case 'start':
          write(startLine(event, root));
          break;
        case 'trajectory-end':
          write(trajectoryLine(event, show));
          break;
        case 'batch-status': {
          // Polling repeats the same status: print only changes.
          const line = batchLine(event);
          if (line !== lastBatch) write(line);
          lastBatch = line;
          break;
        }
        case 'note':
          write(escapeControlChars(event.message));
          break;
      }
    },
    stop: () => undefined,
  };
}

/**
 * A cli-progress bar with ETA, drawn through `write` (stderr is a terminal). Lines that must stay
 * (errors, notes) are logged above the bar; with `--batch-api` the bar follows each batch's counts
 * (the provider reports no per-trajectory ends).
 */
export function barReporter(
  write: (text: string) => void,
  root: string,
  show: ShowPath,
  options: { columns?: number; batchApi: boolean },
): ProgressReporter {
  const stream = {
    isTTY: true,
    columns: options.columns ?? 80,
    write: (text: string) => {
      write(text);
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  const bars = new cliProgress.MultiBar(
    {
      stream,
      format:
        'judging [{bar}] {percentage}% | {value}/{total} | ETA {eta_formatted} | errors {errors}',
      barsize: 30,
      etaBuffer: 20,
      etaAsynchronousUpdate: true,
      // `?` instead of cli-progress's clipped "INF"/"NULL" before the first trajectory ends
      formatTime: (seconds, options, round) =>
        Number.isFinite(seconds) ? cliProgress.Format.TimeFormat(seconds, options, round) : '?',
    },
    cliProgress.Presets.shades_classic,
  );
  let active = false;
  let judging: cliProgress.SingleBar | undefined;
  let batch: { id: string; bar: cliProgress.SingleBar } | undefined;
  let errors = 0;
  let stopped = false;
  const create = (...args: Parameters<typeof bars.create>) => {
    active = true;
    return bars.create(...args);
  };
  // MultiBar.log() buffers until the next redraw: only use it while a bar is drawn.
  const log = (line: string) => (active ? bars.log(`${line}\n`) : write(`${line}\n`));
  return {
    onProgress: event => {
      switch (event.type) {
        case 'start':
          write(`${startLine(event, root)}\n`);
          if (event.pending > 0 && !options.batchApi) {
            judging = create(event.pending, 0, { errors: 0 });
          }
          break;
        case 'trajectory-end':
          if (event.error) {
            errors += 1;
            log(trajectoryLine(event, show));
          }
          judging?.update(event.done, { errors });
          break;
        case 'batch-status': {
          if (batch?.id !== event.batchId) {
            batch?.bar.stop();
            batch = {
              id: event.batchId,
              bar: create(
                Math.max(event.total, 1),
                0,
                { status: event.status, failed: 0 },
                {
                  format: `batch ${escapeControlChars(event.batchId).replace(/[{}]/g, '')} {status} [{bar}] {value}/{total} | ETA {eta_formatted} | failed {failed}`,
                },
              ),
            };
          }
          batch.bar.setTotal(Math.max(event.total, 1));
          batch.bar.update(event.completed + event.failed, {
            status: escapeControlChars(event.status),
            failed: event.failed,
          });
          break;
        }
        case 'note':
          log(escapeControlChars(event.message));
          break;
      }
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      if (!active) return;
      // Flush lines logged since the last redraw, then draw the final state.
      (bars as unknown as { update: () => void }).update();
      bars.stop();
    },
  };
}
