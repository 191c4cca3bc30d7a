import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelDirName } from './agent-choice';
import { planRuns } from './run-plan';

describe('modelDirName', () => {
  it('nests a model name with / as upstream does, and names offline replays by kind', async () => {
    expect(modelDirName('Qwen/Qwen2.5-VL-72B-Instruct')).toBe('Qwen/Qwen2.5-VL-72B-Instruct');
    expect(modelDirName('gpt-4.1')).toBe('gpt-4.1');
    expect(modelDirName('offline-replay:/some/dir')).toBe('offline-replay');
    const [run] = await planRuns({
      tasks: [{ id: 't1', domain: 'os', config: {} } as never],
      resultDir: '/r',
      actionSpace: 'pyautogui',
      observationType: 'screenshot_a11y_tree',
      modelDir: modelDirName('Qwen/Qwen2.5-VL-72B-Instruct'),
      inject: false,
    });
    expect(run!.dir).toBe(
      join('/r/pyautogui/screenshot_a11y_tree/Qwen/Qwen2.5-VL-72B-Instruct/os/t1'),
    );
  });

  it('refuses a name that would leave the result dir or name no dir', () => {
    for (const bad of ['../x', 'a/../../b', 'a//b', '/abs', 'a/', '.', 'a\\b', 'a\nb'])
      expect(() => modelDirName(bad), bad).toThrow(/not usable as a result dir name/);
  });
});
