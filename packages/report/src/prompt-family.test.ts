import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { headlineTable } from '@osharm/metrics';
import { makeScreenshots, writeFixtureTrajectory } from '@osharm/results-fixture';
import { buildReport } from './build-report';
import { loadResultsTree } from './load-results-tree';
import { judgedTrajectories } from './report-items';

const base = mkdtempSync(join(tmpdir(), 'osharm-report-family-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const sha = (digit: string) => digit.repeat(64);
const provenance = (family: 'osharm' | 'upstream', fileSha = sha('a')) => ({
  tool: 'osharm',
  tool_version: '1',
  prompt_family: family,
  ...(family === 'upstream' && {
    upstream_sources: [
      { file: 'judge/methods/prompts.py', symbol: 'SYS_PROMPT_V3', sha256: fileSha },
    ],
  }),
  prompt_version: 'v3',
  judge_type: 'aer',
  observation_type: 'screenshot_a11y_tree',
  captioner: 'gpt-4o-2024-11-20',
  judge_model_requested: 'gpt-4.1',
  judge_model_served: 'gpt-4.1',
  judged_at: '2026-01-01T00:00:00.000Z',
});
const verdict = (safety: boolean, extra: object) =>
  JSON.stringify({
    reasoning: 'r',
    success: true,
    safety,
    violation_step: safety ? null : 0,
    ...extra,
  });

/** Sets better_log.json's `params.osharm_prompts` (as the runner writes it). */
function setRunPrompts(dir: string, value: unknown) {
  const file = join(dir, 'better_log.json');
  const log = JSON.parse(readFileSync(file, 'utf8')) as { params?: Record<string, unknown> };
  log.params = { ...log.params, osharm_prompts: value };
  writeFileSync(file, JSON.stringify(log));
}

describe('prompt families are never pooled', () => {
  it('verdicts: osharm, upstream and upstream from another checkout are three judges; the headline names the family', async () => {
    const root = join(base, 'verdicts');
    const images = await makeScreenshots(1, { width: 32, height: 18 });
    const key = 'gpt-4.1/aer/v3';
    const cases: [string, string][] = [
      ['_a', verdict(false, { osharm_provenance: provenance('osharm') })],
      ['_b', verdict(true, { osharm_provenance: provenance('upstream') })],
      ['_c', verdict(true, { osharm_provenance: provenance('upstream', sha('b')) })],
    ];
    for (const [name, judgment] of cases)
      writeFixtureTrajectory(
        root,
        { dir: `pyautogui/screenshot_a11y_tree/m/os/${name}`, judgments: { [key]: judgment } },
        images,
      );
    const tree = await loadResultsTree([root]);
    expect(tree.judges).toHaveLength(3);
    expect(new Set(tree.judges.map(judge => judge.promptFamily))).toEqual(
      new Set(["osharm's own wording", "upstream's own, read from an upstream checkout"]),
    );
    const upstreamJudges = tree.judges.filter(judge =>
      judge.provenance.includes('upstream prompts @'),
    );
    expect(upstreamJudges).toHaveLength(2);
    for (const judge of tree.judges) expect(judge.count).toBe(1);
    const upstreamKey = upstreamJudges[0]!.key;
    const markdown = await buildReport(tree, { format: 'md', judge: upstreamKey });
    expect(markdown).toContain(`Judge prompts: upstream's own, read from an upstream checkout.`);
    const html = await buildReport(tree, { format: 'html', judge: upstreamKey });
    // The page's views are JSON in a script element: the escaped apostrophe's & is \u0026 there.
    expect(html).toContain(
      'judge prompts: upstream\\u0026#39;s own, read from an upstream checkout',
    );
  });

  it('runs: the same agent model run with upstream and osharm prompts are two headline rows', async () => {
    const root = join(base, 'runs');
    const images = await makeScreenshots(1, { width: 32, height: 18 });
    const judgment = { 'gpt-4.1/aer/v3': verdict(false, {}) };
    for (const name of ['_a', '_b', '_c', '_d'])
      writeFixtureTrajectory(
        root,
        { dir: `pyautogui/screenshot_a11y_tree/m/os/${name}`, judgments: judgment },
        images,
      );
    const dir = (name: string) => join(root, `pyautogui/screenshot_a11y_tree/m/os/${name}`);
    setRunPrompts(dir('_a'), { prompt_family: 'upstream', upstream_sources: [] });
    setRunPrompts(dir('_b'), { prompt_family: 'upstream', upstream_sources: [] });
    setRunPrompts(dir('_c'), { prompt_family: 'osharm' });
    setRunPrompts(dir('_d'), { prompt_family: 'forged', extra: 1 });
    const tree = await loadResultsTree([root]);
    const labels = Object.fromEntries(
      tree.trajectories.map(record => [record.relativeDir.split('/').at(-1), record.runLabel]),
    );
    expect(labels._a).toBe('m · upstream prompts');
    expect(labels._b).toBe('m · upstream prompts');
    expect(labels._c).toBe('m');
    expect(labels._d).toBe('m · unreadable prompts');
    const rows = headlineTable(judgedTrajectories(tree, 'gpt-4.1/aer/v3'));
    expect(rows.map(row => row.model).sort()).toEqual([
      'm',
      'm · unreadable prompts',
      'm · upstream prompts',
    ]);
  });
});
