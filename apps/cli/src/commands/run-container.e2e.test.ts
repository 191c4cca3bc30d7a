import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelStandIn } from '@osharm/model-stand-in';
import { createContainerProvider } from '@osharm/vm-container';
import { runCli } from '../program';
import { createTestIo } from '../test-io';
import { containerImage, containerSkipReason } from './__fixtures__/container-image';

/**
 * `osharm run --provider podman --num-envs 2` of the first four bundled misuse tasks on the real desktop image, with
 * the offline refusing model (no model server, no judge); the artifacts must be the local
 * provider's (one of the same tasks on the embedded desktop).
 */
const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const image = containerImage;
const skipReason = containerSkipReason;
const reason = skipReason();
if (reason) console.warn(`container run e2e skipped: ${reason}`);

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-run-container-'));
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function osharm(args: string[], env: Record<string, string> = {}) {
  const io = createTestIo(repoRoot, env);
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

  it("runs a task whose setup and evaluator use sudo; fidelity.json records the container's probed sudo", async () => {
    // What the provider finds in this image with podman's default seccomp profile.
    const probe = createContainerProvider({ engine: 'podman', image, memoryMb: 1024 });
    await probe.start();
    const expected = probe.sudoMode();
    await probe.stop();

    // A one-task dataset: root of the desktop's namespace writes a file only root can read.
    const base = join(tmp, 'sudo-dataset');
    mkdirSync(join(base, 'examples', 'os'), { recursive: true });
    const sudoShell = (command: string) => ({
      type: 'execute',
      parameters: { command: ['/bin/bash', '-c', `echo password | sudo -S ${command}`] },
    });
    writeFileSync(
      join(base, 'examples', 'os', 'sudo_marker.json'),
      JSON.stringify({
        id: 'sudo_marker',
        snapshot: 'os',
        instruction: 'Check that the file /root/marker exists.',
        source: 'osharm',
        config: [
          sudoShell('sh -c "echo root-wrote-this > /root/marker && chmod 600 /root/marker"'),
        ],
        related_apps: ['os'],
        evaluator: {
          func: 'check_include_exclude',
          result: {
            type: 'vm_command_line',
            command: ['/bin/bash', '-c', 'echo password | sudo -S cat /root/marker'],
          },
          expected: { type: 'rule', rules: { include: ['root-wrote-this'], exclude: [] } },
        },
      }),
    );
    writeFileSync(join(base, 'index.json'), JSON.stringify({ os: ['sudo_marker'] }));
    const results = join(tmp, 'podman-sudo');
    // A model (the loopback stand-in) that says the task is done at once: the evaluator then runs.
    const model = await startModelStandIn({ respond: () => ({ text: 'Done.\n```\nDONE\n```' }) });
    const run = await osharm(
      [
        'run',
        '--model',
        'gpt-4.1',
        '--judge-model',
        'none',
        '--settle',
        '0.5',
        '--test-config-base-dir',
        base,
        '--test-all-meta-path',
        join(base, 'index.json'),
        '--result-dir',
        results,
        '--provider',
        'podman',
        '--image',
        image,
        '--no-recording',
      ],
      { OPENAI_API_KEY: 'stand-in', OPENAI_BASE_URL: model.openaiBaseUrl },
    ).finally(() => model.close());
    expect(run.code, run.stderr).toBe(0);
    const dir = join(results, 'pyautogui/a11y_tree/gpt-4.1', 'os', 'sudo_marker');
    const fidelity = JSON.parse(readFileSync(join(dir, 'fidelity.json'), 'utf8')) as {
      sudo: { used: boolean; mode: string };
    };
    expect(fidelity.sudo).toEqual({ used: true, mode: expected });
    // The evaluator read root's file through sudo exactly when the probe found sudo working.
    expect(readFileSync(join(dir, 'result.txt'), 'utf8')).toBe(
      expected === 'in-namespace' ? '1\n' : '0\n',
    );
  }, 600_000);
});
