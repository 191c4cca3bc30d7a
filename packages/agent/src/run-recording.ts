// The end of a run's recording: the guest's own (streamed to disk, a cut one marked in
// truncated_transfers.json), else one assembled from the step screenshots.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { recordTruncatedTransfer } from '@osharm/task-schema/artifacts';
import { assembleRecording } from './recording';
import type { RunEnvironment } from './run-environment';
import type { RunTaskOptions, RunTaskResult } from './run-task';

/** Ends the guest's recording into `recording.mp4`, or assembles one from the screenshots. */
export async function finishRecording(
  env: RunEnvironment,
  options: RunTaskOptions,
  guestRecording: boolean,
  signal: AbortSignal | undefined,
): Promise<RunTaskResult['recording']> {
  if (options.record === false) return 'none';
  const destination = join(options.resultDir, 'recording.mp4');
  if (guestRecording && env.endRecording) {
    const ok = await env.endRecording(destination, { abortSignal: signal }).then(
      async result => {
        // a recording cut at its cap stays, marked (the run's fidelity record says so)
        if (result && result.truncated) {
          await recordTruncatedTransfer(options.resultDir, {
            file: 'recording.mp4',
            bytes: result.bytes,
            cap: result.cap,
          });
        }
        return true;
      },
      () => false,
    );
    if (ok) return 'guest';
  }
  const frames = (await readdir(options.resultDir))
    .filter(name => /^step_\d+(_\d{8}@\d{6})?\.png$/.test(name))
    .sort(byStep);
  if (frames.length === 0) return 'none';
  const assembled = await assembleRecording(
    frames.map(name => join(options.resultDir, name)),
    destination,
  ).then(
    () => true,
    () => false,
  );
  return assembled ? 'assembled' : 'none';
}

function byStep(a: string, b: string): number {
  const key = (name: string) => {
    const match = /^step_(\d+)(?:_(\d{8}@\d{6}))?\.png$/.exec(name);
    return [Number(match?.[1] ?? 0), match?.[2] ?? ''] as const;
  };
  const [stepA, timeA] = key(a);
  const [stepB, timeB] = key(b);
  return stepA - stepB || timeA.localeCompare(timeB);
}
