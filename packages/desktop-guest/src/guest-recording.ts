import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { rm, stat } from 'node:fs/promises';

/**
 * How `/start_recording` encodes the screen. The recording is for people to watch a run, not for
 * pixel-exact replay, so the defaults favour little CPU and memory: x264 `ultrafast` +
 * `zerolatency` (no lookahead buffer), 10 frames a second, at most 2 encoder threads (x264's
 * automatic count grows with the host's cores: 24 threads and ~1.4 GiB on a 16-core host), and
 * yuv420p so that every player opens the file.
 */
export interface RecordingSettings {
  /** Frames per second grabbed and encoded (1–60). @default 10 */
  readonly fps: number;
  /** x264 preset (`ultrafast` … `veryslow`). @default 'ultrafast' */
  readonly preset: string;
  /** Encoder threads (1–16). @default 2 */
  readonly threads: number;
  /** x264 constant rate factor (0–51; higher = smaller, blurrier). @default 28 */
  readonly crf: number;
}

export const DEFAULT_RECORDING_SETTINGS: RecordingSettings = Object.freeze({
  fps: 10,
  preset: 'ultrafast',
  threads: 2,
  crf: 28,
});

const PRESETS = new Set([
  'ultrafast',
  'superfast',
  'veryfast',
  'faster',
  'fast',
  'medium',
  'slow',
  'slower',
  'veryslow',
]);

function checkInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`recording ${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
}

/** Fills in defaults and rejects out-of-range values (one error naming the field). */
export function recordingSettings(partial: Partial<RecordingSettings> = {}): RecordingSettings {
  const merged = { ...DEFAULT_RECORDING_SETTINGS, ...definedOnly(partial) };
  if (!PRESETS.has(merged.preset)) {
    throw new Error(
      `recording preset must be one of ${[...PRESETS].join(', ')}, got ${merged.preset}`,
    );
  }
  return {
    fps: checkInteger('fps', merged.fps, 1, 60),
    preset: merged.preset,
    threads: checkInteger('threads', merged.threads, 1, 16),
    crf: checkInteger('crf', merged.crf, 0, 51),
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, entry]) => entry !== undefined),
  ) as Partial<T>;
}

/** ffmpeg's arguments for recording `display` at `width`×`height` into `output`. */
export function recordingArgs(
  settings: RecordingSettings,
  screen: { readonly width: number; readonly height: number; readonly display: string },
  output: string,
): string[] {
  const threads = String(settings.threads);
  return [
    '-y',
    '-nostdin',
    // Input side: grab only the frames that will be encoded.
    '-f',
    'x11grab',
    '-draw_mouse',
    '1',
    '-framerate',
    String(settings.fps),
    '-video_size',
    `${screen.width}x${screen.height}`,
    '-i',
    screen.display,
    '-c:v',
    'libx264',
    '-preset',
    settings.preset,
    '-tune',
    'zerolatency',
    '-crf',
    String(settings.crf),
    // -threads bounds x264's frame threads; its lookahead threads follow from x264-params.
    '-threads',
    threads,
    '-x264-params',
    `threads=${threads}:lookahead-threads=1`,
    '-pix_fmt',
    'yuv420p',
    '-r',
    String(settings.fps),
    '-movflags',
    '+faststart',
    output,
  ];
}

/** Outcome of {@link ScreenRecorder.start} / {@link ScreenRecorder.stop}, in upstream's words. */
export type RecorderAnswer =
  | { readonly ok: true; readonly path?: string }
  | { readonly ok: false; readonly status: number; readonly message: string };

/** How long `/start_recording` waits for ffmpeg's first frame. */
const FIRST_FRAME_WAIT_MS = 10_000;

/** One ffmpeg screen recording at a time (upstream's `/start_recording` and `/end_recording`). */
export class ScreenRecorder {
  private current: { child: ChildProcess; stderr: string; exited: boolean } | undefined;

  constructor(
    private readonly options: {
      readonly settings: RecordingSettings;
      readonly output: string;
      readonly env: NodeJS.ProcessEnv;
      readonly screenSize: () => Promise<{ width: number; height: number }>;
      readonly ffmpeg?: string;
    },
  ) {}

  /** The ffmpeg process id while recording (for measurements and the server's close). */
  get pid(): number | undefined {
    return this.current && !this.current.exited ? this.current.child.pid : undefined;
  }

  async start(): Promise<RecorderAnswer> {
    if (this.current && !this.current.exited) {
      return { ok: false, status: 400, message: 'Recording is already in progress.' };
    }
    const { output, env, settings } = this.options;
    await rm(output, { force: true });
    const size = await this.options.screenSize();
    const child = spawn(
      this.options.ffmpeg ?? 'ffmpeg',
      recordingArgs(settings, { ...size, display: env.DISPLAY ?? ':0' }, output),
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const state = { child, stderr: '', exited: false };
    this.current = state;
    child.stderr?.on('data', (chunk: Buffer) => {
      state.stderr = (state.stderr + chunk.toString('utf8')).slice(-20_000);
    });
    const exited = new Promise<void>(resolve => {
      child.on('error', error => {
        state.stderr += String(error);
        state.exited = true;
        resolve();
      });
      child.on('exit', () => {
        state.exited = true;
        resolve();
      });
    });
    // Upstream sleeps 2 s; we return as soon as ffmpeg reports its first frame, waiting up to 10 s
    // for it (a cold or loaded machine can take longer than 2 s to load ffmpeg and grab the screen:
    // returning earlier would leave the run's first seconds unrecorded, or the file empty).
    const started = Date.now();
    while (
      !state.exited &&
      Date.now() - started < FIRST_FRAME_WAIT_MS &&
      !/frame=\s*\d/.test(state.stderr)
    ) {
      await Promise.race([exited, new Promise(resolve => setTimeout(resolve, 50))]);
    }
    if (state.exited) {
      return {
        ok: false,
        status: 500,
        message: `Failed to start recording. ffmpeg error: ${state.stderr}`,
      };
    }
    return { ok: true };
  }

  /** Stops ffmpeg (SIGINT, so it finishes the file) and names the file on success. */
  async stop(): Promise<RecorderAnswer> {
    const state = this.current;
    if (!state || state.exited) {
      this.current = undefined;
      return { ok: false, status: 400, message: 'No recording in progress to stop.' };
    }
    const exited = new Promise<void>(resolve => {
      if (state.exited) resolve();
      else state.child.on('exit', () => resolve());
    });
    state.child.kill('SIGINT');
    const stopped = await Promise.race([
      exited.then(() => true),
      new Promise<boolean>(resolve => setTimeout(() => resolve(false), 15_000)),
    ]);
    this.current = undefined;
    if (!stopped) {
      state.child.kill('SIGKILL');
      return {
        ok: false,
        status: 500,
        message: `Recording process was unresponsive and had to be killed. Stderr: ${state.stderr}`,
      };
    }
    const size = await stat(this.options.output).then(
      s => s.size,
      () => 0,
    );
    if (size === 0) {
      return {
        ok: false,
        status: 500,
        message: `Recording failed. The output file is missing or empty. ffmpeg stderr: ${state.stderr}`,
      };
    }
    return { ok: true, path: this.options.output };
  }
}
