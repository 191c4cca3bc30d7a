import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DESKTOP_IMAGE } from '@osharm/vm-container';
import { checkLocalDesktopRequirements } from '@osharm/vm-local';
import { runCli } from '../program';
import { createTestIo } from '../test-io';

/**
 * `osharm run --provider podman --num-envs 2` of the first four bundled misuse tasks on the real desktop image, with
 * the offline refusing model (no model server, no judge); the artifacts must be the local
 * provider's (one of the same tasks on the embedded desktop).
 */
const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const image = process.env.OSHARM_DESKTOP_IMAGE ?? DEFAULT_DESKTOP_IMAGE;
function skipReason(): string | undefined {
  try {
    execFileSync('podman', ['image', 'inspect', image], { stdio: 'ignore' });
  } catch {
    return `podman or the desktop image ${image} is missing: build it with scripts/build-desktop-image.sh`;
  }
  return checkLocalDesktopRequirements().ok ? undefined : 'the local desktop is not available';
}
const reason = skipReason();
if (reason) console.warn(`container run e2e skipped: ${reason}`);

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-run-container-'));
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function osharm(args: string[]) {
  const io = createTestIo(repoRoot, {});
  const code = await runCli(args, io.io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}
const common = (resultDir: string) => [
  'run',
  '--model',
  'offline-refuse',
  '--judge-model',
  'none',
  '--settle',
  '0.5',
  '--test-all-meta-path',
  'evaluation_examples/test_misuse.json',
  '--result-dir',
  resultDir,
];
const modelDir = (resultDir: string) => join(resultDir, 'pyautogui/a11y_tree/offline-refuse');
/** `domain/task` of every run directory under a results root. */
async function runDirs(resultDir: string): Promise<string[]> {
  const found: string[] = [];
  for (const domain of await readdir(modelDir(resultDir))) {
    for (const task of await readdir(join(modelDir(resultDir), domain)))
      found.push(`${domain}/${task}`);
  }
  return found.sort();
}

describe.skipIf(reason !== undefined)('osharm run --provider podman', () => {
  it('runs four tasks on two containers with the local provider artifacts, and leaves no container', async () => {
    const containerResults = join(tmp, 'podman');
    const run = await osharm([
      ...common(containerResults),
      '--limit',
      '4',
      '--provider',
      'podman',
      '--num-envs',
      '2',
      '--image',
      image,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/on 2 podman environment\(s\)/);
    const tasks = await runDirs(containerResults);
    expect(tasks).toHaveLength(4);
    for (const task of tasks) {
      const score = readFileSync(join(modelDir(containerResults), task, 'result.txt'), 'utf8');
      expect(score).toMatch(/^[01](\.\d+)?\n$/);
    }

    const localResults = join(tmp, 'local');
    const local = await osharm([
      ...common(localResults),
      '--task',
      (tasks[0] as string).split('/')[1] as string,
    ]);
    expect(local.code, local.stderr).toBe(0);
    const localFiles = (await readdir(join(modelDir(localResults), tasks[0] as string))).sort();
    const containerFiles = (
      await readdir(join(modelDir(containerResults), tasks[0] as string))
    ).sort();
    const untimed = (files: string[]) => files.map(file => file.replace(/_\d{8}@\d{6}/, '_<time>'));
    expect(untimed(containerFiles)).toEqual(untimed(localFiles));
    expect(existsSync(join(modelDir(containerResults), tasks[0] as string, 'recording.mp4'))).toBe(
      localFiles.includes('recording.mp4'),
    );

    const left = execFileSync(
      'podman',
      ['ps', '--all', '--filter', 'label=org.osharm.vm-container.owner', '--format', '{{.Names}}'],
      { encoding: 'utf8' },
    );
    expect(left.trim()).toBe('');
  }, 900_000);
});
