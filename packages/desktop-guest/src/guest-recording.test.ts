import { describe, expect, it } from 'vitest';
import { DEFAULT_RECORDING_SETTINGS, recordingArgs, recordingSettings } from './guest-recording';

const screen = { width: 1920, height: 1080, display: ':7' };

function valueAfter(args: readonly string[], flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index < 0 ? undefined : args[index + 1];
}

describe('recording settings', () => {
  it('defaults to a cheap recording: 10 fps, ultrafast, 2 threads', () => {
    expect(recordingSettings()).toEqual({ fps: 10, preset: 'ultrafast', threads: 2, crf: 28 });
    expect(recordingSettings()).toEqual(DEFAULT_RECORDING_SETTINGS);
  });

  it('keeps given fields and fills the rest; undefined fields keep the default', () => {
    expect(recordingSettings({ fps: 5, threads: undefined })).toEqual({
      ...DEFAULT_RECORDING_SETTINGS,
      fps: 5,
    });
  });

  it('rejects out-of-range values with one error naming the field', () => {
    expect(() => recordingSettings({ fps: 0 })).toThrow(/recording fps .* got 0/);
    expect(() => recordingSettings({ fps: Number.NaN })).toThrow(/recording fps/);
    expect(() => recordingSettings({ threads: 2.5 })).toThrow(/recording threads/);
    expect(() => recordingSettings({ crf: 52 })).toThrow(/recording crf/);
    expect(() => recordingSettings({ preset: 'placebo; rm -rf /' })).toThrow(/recording preset/);
  });
});

describe('recordingArgs', () => {
  it('grabs and encodes at the frame rate, with bounded threads and yuv420p', () => {
    const args = recordingArgs(recordingSettings(), screen, '/tmp/out.mp4');
    expect(valueAfter(args, '-f')).toBe('x11grab');
    expect(valueAfter(args, '-framerate')).toBe('10');
    expect(valueAfter(args, '-r')).toBe('10');
    expect(valueAfter(args, '-video_size')).toBe('1920x1080');
    expect(valueAfter(args, '-i')).toBe(':7');
    expect(valueAfter(args, '-preset')).toBe('ultrafast');
    expect(valueAfter(args, '-tune')).toBe('zerolatency');
    expect(valueAfter(args, '-threads')).toBe('2');
    expect(valueAfter(args, '-x264-params')).toBe('threads=2:lookahead-threads=1');
    expect(valueAfter(args, '-pix_fmt')).toBe('yuv420p');
    expect(args.at(-1)).toBe('/tmp/out.mp4');
    // The input options come before -i, the output ones after it.
    expect(args.indexOf('-framerate')).toBeLessThan(args.indexOf('-i'));
    expect(args.indexOf('-threads')).toBeGreaterThan(args.indexOf('-i'));
  });

  it('follows changed settings', () => {
    const args = recordingArgs(
      recordingSettings({ fps: 24, preset: 'veryfast', threads: 4, crf: 20 }),
      screen,
      '/o.mp4',
    );
    expect(valueAfter(args, '-framerate')).toBe('24');
    expect(valueAfter(args, '-preset')).toBe('veryfast');
    expect(valueAfter(args, '-threads')).toBe('4');
    expect(valueAfter(args, '-crf')).toBe('20');
  });
});
