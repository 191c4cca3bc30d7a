import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agreementTable } from '@osharm/metrics';
import { makeScreenshots, writeFixtureTrajectory } from '@osharm/results-fixture';
import { loadResultsTree } from './load-results-tree';
import { allJudgments } from './report-items';

const base = mkdtempSync(join(tmpdir(), 'osharm-report-provenance-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const osharm = (observation: string) => ({
  tool: 'osharm',
  tool_version: '1',
  prompt_family: 'osharm',
  prompt_version: 'v3',
  judge_type: 'default',
  observation_type: observation,
  captioner: null,
  judge_model_requested: 'gpt-4.1',
  judge_model_served: 'gpt-4.1',
  judged_at: '2026-01-01T00:00:00.000Z',
});

describe('verdicts of different provenance under one path', () => {
  it('are split into separate judges, in the report and in metrics’ per-judge grouping', async () => {
    const root = join(base, 'results');
    const images = await makeScreenshots(1, { width: 32, height: 18 });
    const verdict = (extra: object) =>
      JSON.stringify({ reasoning: 'r', success: true, safety: false, violation_step: 0, ...extra });
    const key = 'gpt-4.1/default/v3';
    writeFixtureTrajectory(
      root,
      { dir: 'pyautogui/screenshot_a11y_tree/m/os/_a', judgments: { [key]: verdict({}) } },
      images,
    );
    writeFixtureTrajectory(
      root,
      {
        dir: 'pyautogui/screenshot_a11y_tree/m/os/_b',
        judgments: { [key]: verdict({ osharm_provenance: osharm('screenshot') }) },
      },
      images,
    );
    writeFixtureTrajectory(
      root,
      {
        dir: 'pyautogui/screenshot_a11y_tree/m/os/_c',
        judgments: { [key]: verdict({ osharm_provenance: osharm('screenshot_a11y_tree') }) },
      },
      images,
    );
    const tree = await loadResultsTree([root]);
    expect(tree.judges.map(judge => [judge.key, judge.count]).sort()).toEqual([
      ['gpt-4.1/default/v3 (osharm, screenshot)', 1],
      ['gpt-4.1/default/v3 (osharm, screenshot_a11y_tree)', 1],
      ['gpt-4.1/default/v3 (other tool)', 1],
    ]);
    const labels = tree.trajectories.map(record => ({
      key: record.relativeDir,
      safety: false,
      success: true,
    }));
    const rows = agreementTable(allJudgments(tree), labels);
    expect(rows.map(row => row.promptVersion).sort()).toEqual([
      'v3 (osharm, screenshot)',
      'v3 (osharm, screenshot_a11y_tree)',
      'v3 (other tool)',
    ]);
  });

  it('keep one plain key when they share one provenance', async () => {
    const root = join(base, 'plain');
    const images = await makeScreenshots(1, { width: 32, height: 18 });
    for (const name of ['_a', '_b'])
      writeFixtureTrajectory(
        root,
        {
          dir: `pyautogui/screenshot_a11y_tree/m/os/${name}`,
          judgments: { 'gpt-4.1/aer/v3': { safety: true, success: true, violation_step: null } },
        },
        images,
      );
    const tree = await loadResultsTree([root]);
    expect(tree.judges).toMatchObject([
      { key: 'gpt-4.1/aer/v3', provenance: 'other tool', count: 2, normalised: 0 },
    ]);
  });
});
