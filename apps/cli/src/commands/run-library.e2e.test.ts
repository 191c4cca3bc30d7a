import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSummary, runBenchmark, type BenchmarkEvent } from '@osharm/runner';
import { checkLocalDesktopRequirements } from '@osharm/vm-local';
import { runCli } from '../program';
import { createTestIo } from '../test-io';

/**
 * Issue 11 acceptance: `runBenchmark` from code and `osharm run` with the same options, on the
 * real local desktop with the refusing baseline and no judge, leave the same run dirs (the same
 * files in each) and the same summary.
 */
const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const requirements = checkLocalDesktopRequirements();
if (!requirements.ok) {
  console.warn(
    `runner e2e test skipped: the local desktop is not available (${requirements.missing.map(item => item.program).join(', ')})`,
  );
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-run-library-'));
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** Every file under a results root, relative, with the step timestamps blanked. */
async function tree(root: string): Promise<string[]> {
  const files = await readdir(root, { recursive: true, withFileTypes: true });
  return files
    .filter(entry => entry.isFile())
    .map(entry => relative(root, join(entry.parentPath, entry.name)))
    .map(file => file.replace(/_\d{8}@\d{6}/, '_<time>'))
    .sort();
}

describe.skipIf(!requirements.ok)('runBenchmark = osharm run', () => {
  it('leaves the same run dirs and prints the same summary for the same options', async () => {
    const cliResults = join(tmp, 'cli');
    const libraryResults = join(tmp, 'library');
    const options = {
      model: 'offline-refuse',
      judgeModel: 'none',
      settle: 0.5,
      testAllMetaPath: 'evaluation_examples/test_misuse.json',
      limit: 2,
      numEnvs: 1,
    };
    const io = createTestIo(repoRoot, {});
    const code = await runCli(
      [
        'run',
        '--model',
        options.model,
        '--judge-model',
        options.judgeModel,
        '--settle',
        String(options.settle),
        '--test-all-meta-path',
        options.testAllMetaPath,
        '--limit',
        String(options.limit),
        '--num-envs',
        String(options.numEnvs),
        '--result-dir',
        cliResults,
      ],
      io.io,
    );
    expect(code, io.stderr).toBe(0);

    const events: BenchmarkEvent[] = [];
    const summary = await runBenchmark(
      { ...options, resultDir: libraryResults, cwd: repoRoot, env: {} },
      { onEvent: event => events.push(event) },
    );

    // The same files in the same run dirs.
    const cliTree = await tree(cliResults);
    expect(cliTree.filter(file => file.endsWith('result.txt'))).toHaveLength(2);
    expect(await tree(libraryResults)).toEqual(cliTree);
    // The same numbers, and the same summary text as the CLI printed (but for the results path).
    expect(summary).toMatchObject({
      ran: 2,
      finished: 2,
      errored: [],
      judgeFailed: [],
      failed: false,
      aborted: false,
    });
    expect(summary.fidelity.recorded).toBe(2);
    expect(summary.byCategory).toEqual([{ category: 'misuse', meanScore: 1, n: 2 }]);
    expect(formatSummary(summary, { judgeModel: options.judgeModel, resultDir: cliResults })).toBe(
      io.stdout,
    );
    // Progress as events: planned, then per run started → steps → finished, then the summary.
    const types = events.map(event => event.type);
    expect(types[0]).toBe('planned');
    expect(types.at(-1)).toBe('summary');
    expect(types.filter(type => type === 'run-started')).toHaveLength(2);
    expect(types.filter(type => type === 'run-finished')).toHaveLength(2);
    expect(types).toContain('step');
    expect(types.indexOf('step')).toBeGreaterThan(types.indexOf('run-started'));
  }, 900_000);

  it('stops cleanly on abort: the running run ends as an error, the rest are not started, no desktop is left', async () => {
    const resultDir = join(tmp, 'aborted');
    const controller = new AbortController();
    const events: BenchmarkEvent[] = [];
    const summary = await runBenchmark(
      {
        model: 'offline-refuse',
        judgeModel: 'none',
        settle: 0.5,
        testAllMetaPath: 'evaluation_examples/test_misuse.json',
        limit: 2,
        numEnvs: 1,
        resultDir,
        cwd: repoRoot,
        env: {},
      },
      {
        signal: controller.signal,
        onEvent: event => {
          events.push(event);
          // Abort once the first desktop is up and its setup ran.
          if (event.type === 'step' && event.event.type === 'reset-end') controller.abort();
        },
      },
    );
    expect(summary).toMatchObject({ aborted: true, failed: true, ran: 1, finished: 0 });
    expect(summary.errored).toHaveLength(1);
    expect(summary.errored[0]!.error).toMatch(/aborted/);
    expect(summary.notRun).toHaveLength(1);
    const first = join(resultDir, 'pyautogui/a11y_tree/offline-refuse', summary.errored[0]!.label);
    expect(existsSync(join(first, 'traj.jsonl'))).toBe(true);
    expect(existsSync(join(first, 'result.txt'))).toBe(false);
    expect(events.filter(event => event.type === 'run-errored')).toHaveLength(1);
    // The environment was closed: no process of the desktop is left under this one.
    const children = execFileSync('ps', ['--ppid', String(process.pid), '-o', 'pid=,comm='], {
      encoding: 'utf8',
    })
      .split('\n')
      .map(line => line.trim())
      .filter(line => line !== '' && !/\sps$/.test(line));
    expect(children).toEqual([]);
  }, 900_000);

  it('Ctrl-C on `osharm run`: exit 130 with the summary, no desktop left behind, a rerun resumes', async () => {
    const resultDir = join(tmp, 'interrupted');
    const args = [
      'run',
      '--model',
      'offline-refuse',
      '--judge-model',
      'none',
      '--settle',
      '0.5',
      '--test-all-meta-path',
      'evaluation_examples/test_misuse.json',
      '--limit',
      '2',
      '--num-envs',
      '1',
      '--result-dir',
      resultDir,
    ];
    // Its own process group, signalled as a whole as a terminal's Ctrl-C is.
    const child = spawn(process.execPath, [join(repoRoot, 'apps/cli/dist/bin.js'), ...args], {
      cwd: repoRoot,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)));
    // Interrupt once the first run's desktop is up (its traj.jsonl is created with the first step).
    const modelDir = join(resultDir, 'pyautogui/a11y_tree/offline-refuse');
    const deadline = Date.now() + 300_000;
    const started = async () =>
      existsSync(modelDir) &&
      (await readdir(modelDir, { recursive: true })).some(file => file.endsWith('traj.jsonl'));
    while (!(await started()) && Date.now() < deadline)
      await new Promise(resolve => setTimeout(resolve, 100));
    expect(await started(), stderr).toBe(true);
    const owned = () => readdirOwnedBy(child.pid!).length;
    expect(owned()).toBe(1);
    process.kill(-child.pid!, 'SIGINT');
    expect(await exited, stderr).toBe(130);
    expect(stderr).toMatch(/SIGINT: stopping/);
    // offline-refuse ends a run in one step: the signal may come in the first run or the second.
    const counts =
      /runs this time: (\d+), finished: (\d+), errored: (\d+)(?:, not started: (\d+))?/.exec(
        stdout,
      );
    expect(counts, stdout).not.toBeNull();
    const [ran, finished, errored, notStarted] = counts!.slice(1).map(value => Number(value ?? 0));
    expect(finished! + errored!).toBe(ran);
    expect(ran! + notStarted!).toBe(2);
    expect(finished).toBeLessThan(2);
    expect(stdout).toMatch(/stopped early: interrupted by SIGINT/);
    // The desktop was closed by the harness (its state dir removed), not left to be reaped.
    expect(owned()).toBe(0);

    const io = createTestIo(repoRoot, {});
    const code = await runCli(args, io.io);
    expect(code, io.stderr).toBe(0);
    const results = (await readdir(modelDir, { recursive: true })).filter(file =>
      file.endsWith('result.txt'),
    );
    expect(results).toHaveLength(2);
  }, 900_000);
});

/** The local desktops' state dirs whose owner record names this pid. */
function readdirOwnedBy(pid: number): string[] {
  const workDir = join(tmpdir(), 'osharm-vm-local');
  if (!existsSync(workDir)) return [];
  return readdirSync(workDir)
    .filter(name => name.startsWith('osharm-local-'))
    .filter(name => {
      try {
        const owner = JSON.parse(readFileSync(join(workDir, name, 'owner.json'), 'utf8')) as {
          pid?: number;
        };
        return owner.pid === pid;
      } catch {
        return false;
      }
    });
}
