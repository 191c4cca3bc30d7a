import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateDataset, type DatasetTask } from '../dataset-loader';
import { expandInjectionRuns } from '../injection-runs';
import { OBSERVATION_TYPES } from '../run-options';
import { taskCategory } from '../task-category';
import { describeTrajectoryPath, modelDirName, runDirOf, type RunDirParts } from './result-layout';

// Build ↔ parse over every run id of the real upstream dataset: plain, paraphrased (`_aug`),
// every injection (vector, goal) and the jailbreak model dir, with plain and nested model names.
const BASE = fileURLToPath(
  new URL('../../../../../shared/osharm-dataset/evaluation_examples', import.meta.url),
);

let tasks: readonly DatasetTask[];
beforeAll(async () => {
  expect(existsSync(BASE), `upstream dataset expected at ${BASE}`).toBe(true);
  tasks = (await validateDataset({ baseDir: BASE })).tasks;
});

/** Every run of the dataset, as `osharm run` (and upstream's run.py) would name it. */
function allRuns(): Omit<RunDirParts, 'resultDir' | 'actionSpace' | 'observationType' | 'model'>[] {
  const runs: Omit<RunDirParts, 'resultDir' | 'actionSpace' | 'observationType' | 'model'>[] = [];
  for (const task of tasks) {
    runs.push({ domain: task.domain, taskId: task.id });
    for (const run of expandInjectionRuns(task.config).runs)
      runs.push({
        domain: task.domain,
        taskId: task.id,
        injection: { vector: run.vector.type, goal: run.goal },
      });
  }
  return runs;
}

describe('result layout: build and parse are inverse over the real dataset', () => {
  it('covers every run id form of the dataset', () => {
    const runs = allRuns();
    expect(runs.some(run => run.taskId.endsWith('_aug'))).toBe(true);
    expect(runs.filter(run => run.injection).length).toBeGreaterThanOrEqual(50);
    expect(new Set(runs.map(run => run.injection?.vector).filter(Boolean)).size).toBe(6);
  });

  for (const model of ['o4-mini', 'Qwen/Qwen2.5-VL-72B-Instruct'])
    for (const jailbreak of [false, true])
      it(`${model}${jailbreak ? ' (jailbreak)' : ''}: every run's dir parses back to its parts`, () => {
        const observationType = OBSERVATION_TYPES[jailbreak ? 2 : 1]!;
        const seen = new Set<string>();
        for (const run of allRuns()) {
          const parts: RunDirParts = {
            resultDir: '/results',
            actionSpace: 'pyautogui',
            observationType,
            model,
            jailbreak,
            ...run,
          };
          const { dir, label } = runDirOf(parts);
          expect(
            dir.startsWith(
              `/results/pyautogui/${observationType}/${modelDirName(model, jailbreak)}/`,
            ),
          ).toBe(true);
          seen.add(dir);
          const described = describeTrajectoryPath(dir);
          expect(described).toStrictEqual({
            taskId: run.taskId,
            category: run.injection ? 'injection' : taskCategory(run.taskId),
            domain: run.domain,
            model,
            jailbreak,
            observationType,
            actionSpace: 'pyautogui',
            ...(run.injection && { injection: run.injection }),
          });
          expect(label).toBe(dir.split('/').slice(-2).join('/'));
        }
        // Distinct runs get distinct dirs (upstream's duplicate pair is dropped by the expansion).
        expect(seen.size).toBe(allRuns().length);
      });

  it("matches the reference's example result dir", () => {
    const { dir } = runDirOf({
      resultDir: 'results',
      actionSpace: 'pyautogui',
      observationType: 'screenshot_a11y_tree',
      model: 'o4-mini',
      domain: 'thunderbird',
      taskId: '__injected_email',
      injection: { vector: 'thunderbird_mail_received', goal: 'stop_task' },
    });
    expect(dir).toBe(
      'results/pyautogui/screenshot_a11y_tree/o4-mini/thunderbird/__injected_email__inject__thunderbird_mail_received__stop_task',
    );
  });
});
