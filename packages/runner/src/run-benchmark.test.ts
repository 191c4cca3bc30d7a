import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { VmProviderV1 } from '@osharm/desktop-env';
import {
  formatSummary,
  RUN_DEFAULTS,
  runBenchmark,
  RunOptionsError,
  type BenchmarkEvent,
} from './index';

/**
 * runBenchmark without a desktop: the checks before anything starts, and a resumed batch whose
 * runs all hold a score (nothing to run). The desktop runs are in apps/cli's
 * run-library.e2e.test.ts, which compares them with `osharm run`.
 */
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'osharm-runner-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const base = {
  cwd: repoRoot,
  env: {},
  model: 'offline-refuse',
  judgeModel: 'none',
  testAllMetaPath: 'evaluation_examples/test_misuse.json',
} as const;

describe('runBenchmark: options', () => {
  it("has osharm run's defaults", () => {
    expect(RUN_DEFAULTS).toMatchObject({
      model: 'gpt-4o',
      judgeModel: 'gpt-4.1',
      observationType: 'a11y_tree',
      judgeType: 'aer',
      maxSteps: 15,
      resultDir: './results',
      provider: 'local',
    });
  });

  it('refuses, before anything starts, a model that needs a key', async () => {
    await expect(
      runBenchmark({ ...base, model: 'gpt-4.1', resultDir: join(tmp, 'key') }),
    ).rejects.toThrow(/--model gpt-4\.1 needs a model API: set OPENAI_API_KEY/);
  });

  it('runs its checks once, in order, and hands over after them (the CLI adds its dataset check there)', async () => {
    const calls: string[] = [];
    const control = {
      onModelNotices: () => void calls.push('notices'),
      afterChecks: () => {
        calls.push('after');
        throw new RunOptionsError('the front end stops here');
      },
    };
    // A key is missing: stops before the model checks, nothing handed over.
    await expect(runBenchmark({ ...base, model: 'gpt-4.1' }, control)).rejects.toThrow(
      /needs a model API/,
    );
    expect(calls).toEqual([]);
    // Flags that disagree: the model notices came, the hand-over did not.
    await expect(
      runBenchmark({ ...base, observationType: 'som', actionSpace: 'computer_13' }, control),
    ).rejects.toThrow('--observation-type som works only with --action-space pyautogui');
    expect(calls).toEqual(['notices']);
    // Every check passed: handed over once, before the dataset is read (a missing index is not
    // reached).
    await expect(
      runBenchmark({ ...base, testAllMetaPath: join(tmp, 'no-index.json') }, control),
    ).rejects.toThrow('the front end stops here');
    expect(calls).toEqual(['notices', 'notices', 'after']);
  });

  it('refuses an unknown provider name, a task not in the index, and one provider object for two environments', async () => {
    await expect(runBenchmark({ ...base, provider: 'qemu' as never })).rejects.toBeInstanceOf(
      RunOptionsError,
    );
    await expect(runBenchmark({ ...base, task: ['no_such_task'] })).rejects.toThrow(
      '--task: none of no_such_task is in evaluation_examples/test_misuse.json',
    );
    const provider = {
      specificationVersion: 'vm-provider-v1',
      providerId: 'elsewhere',
      start: () => Promise.reject(new Error('not started in this test')),
      endpoint: () => undefined,
      revert: () => Promise.reject(new Error('not started in this test')),
      stop: () => Promise.resolve(),
    } satisfies VmProviderV1;
    await expect(
      runBenchmark({ ...base, provider, numEnvs: 2, resultDir: join(tmp, 'object') }),
    ).rejects.toThrow(/one provider object drives one environment/);
  });
});

describe('runBenchmark: resume', () => {
  it('runs nothing when every planned run holds a score, and says so in events and summary', async () => {
    const resultDir = join(tmp, 'resumed');
    const modelDir = join(resultDir, 'pyautogui/a11y_tree/offline-refuse');
    for (const run of ['os/_keylogger_autostart', 'os/_keylogger_autostart_aug']) {
      mkdirSync(join(modelDir, run), { recursive: true });
      writeFileSync(join(modelDir, run, 'result.txt'), '1\n');
    }
    const events: BenchmarkEvent[] = [];
    const summary = await runBenchmark(
      { ...base, resultDir, limit: 2 },
      { onEvent: event => events.push(event) },
    );
    expect(events.map(event => event.type)).toEqual(['planned', 'summary']);
    const planned = events[0] as Extract<BenchmarkEvent, { type: 'planned' }>;
    expect(planned.runs.map(run => run.label)).toEqual([
      'os/_keylogger_autostart',
      'os/_keylogger_autostart_aug',
    ]);
    expect(planned.pending).toEqual([]);
    expect(summary).toMatchObject({
      ran: 0,
      finished: 0,
      errored: [],
      fidelity: { faithful: 0, recorded: 0 },
      failed: false,
      aborted: false,
    });
    expect(formatSummary(summary, { judgeModel: 'none', resultDir: 'results' })).toBe(
      '\nruns this time: 0, finished: 0, errored: 0\n' +
        'fidelity: 0 faithful of 0 (fidelity.json in each run dir says why not)\n' +
        'LLM judging was off (--judge-model none); deterministic injection evidence, if any, is in each run dir.\n' +
        'results: results (2 run dir(s))\n',
    );
  });

  it('starts no run once the signal is aborted, closes the pool and reports the runs not started', async () => {
    const controller = new AbortController();
    controller.abort();
    const calls: string[] = [];
    const provider = (): VmProviderV1 => ({
      specificationVersion: 'vm-provider-v1',
      providerId: 'elsewhere',
      start: () => {
        calls.push('start');
        return Promise.reject(new Error('no run should start'));
      },
      endpoint: () => undefined,
      revert: () => {
        calls.push('revert');
        return Promise.reject(new Error('no run should start'));
      },
      stop: () => {
        calls.push('stop');
        return Promise.resolve();
      },
    });
    const events: BenchmarkEvent[] = [];
    const summary = await runBenchmark(
      { ...base, resultDir: join(tmp, 'aborted'), limit: 2, numEnvs: 1, provider },
      { signal: controller.signal, onEvent: event => events.push(event) },
    );
    expect(calls).not.toContain('start');
    expect(calls).not.toContain('revert');
    expect(events.map(event => event.type)).toEqual(['planned', 'summary']);
    expect(summary).toMatchObject({ ran: 0, aborted: true, failed: true });
    expect(summary.notRun.map(run => run.label)).toEqual([
      'os/_keylogger_autostart',
      'os/_keylogger_autostart_aug',
    ]);
    const text = formatSummary(summary, { judgeModel: 'none', resultDir: 'r' });
    expect(text).toContain('runs this time: 0, finished: 0, errored: 0, not started: 2\n');
    expect(text).toContain('stopped early: aborted by the caller\n');
  });
});
