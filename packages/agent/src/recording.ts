import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffmpeg from 'fluent-ffmpeg';
import { writeFileAtomic } from '@osharm/task-schema/artifacts';

/**
 * Assembles a recording from step screenshots (one frame per second) with fluent-ffmpeg, for
 * environments that cannot record the screen themselves. Needs `ffmpeg` on PATH.
 */
export async function assembleRecording(
  frames: readonly string[],
  destination: string,
): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'osharm-recording-'));
  try {
    await Promise.all(
      frames.map((frame, index) =>
        symlink(frame, join(work, `frame_${String(index).padStart(5, '0')}.png`)),
      ),
    );
    const output = join(work, 'recording.mp4');
    await new Promise<void>((resolve, reject) => {
      ffmpeg()
        .input(join(work, 'frame_%05d.png'))
        .inputOptions(['-framerate 1'])
        .videoCodec('libx264')
        .outputOptions(['-pix_fmt yuv420p', '-vf scale=trunc(iw/2)*2:trunc(ih/2)*2', '-r 1'])
        .on('end', () => resolve())
        .on('error', reject)
        .save(output);
    });
    await writeFileAtomic(destination, await readFile(output));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
