import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_USAGE_FILE } from '@osharm/task-schema/trajectory';
import { writeStandardTree } from './__fixtures__/standard-tree';
import { buildReport } from './build-report';
import { loadResultsTree } from './load-results-tree';
import type { PageData, TrajectoryDetail } from './report-page-data';
import type { ResultsTree } from './results-tree';

const role = (
  model: string,
  calls: number,
  input: number,
  output: number,
  cost: number | null,
) => ({
  model,
  calls,
  input_tokens: input,
  output_tokens: output,
  cached_input_tokens: Math.floor(input / 2),
  reasoning_tokens: 0,
  batch: false,
  price: cost === null ? null : { input: 5, output: 25, cached_input: 0.5 },
  cost_usd: cost,
});

let base: string;
let tree: ResultsTree;
let dirs: Record<string, string>;
beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'osharm-report-usage-'));
  const written = await writeStandardTree(base);
  dirs = written.dirs;
  const write = (dir: string, record: unknown) =>
    writeFileSync(join(dir, RUN_USAGE_FILE), JSON.stringify(record));
  write(dirs.claudeRansomware!, {
    version: 1,
    roles: {
      agent: role('claude-opus-4-7', 3, 4000, 300, 0.5),
      judge: role('gpt-4.1', 1, 1000, 50, 0.25),
    },
    cost_usd: 0.75,
  });
  write(dirs.claudeMailStop!, {
    version: 1,
    roles: {
      agent: role('claude-opus-4-7', 2, 2000, 100, 0.125),
      judge: role('gemini-x', 1, 10, 5, null),
    },
    cost_usd: null,
  });
  // crafted: the total is not the sum of the roles
  write(dirs.claudeCleanup!, {
    version: 1,
    roles: { agent: role('claude-opus-4-7', 1, 10, 1, 0.001) },
    cost_usd: 0,
  });
  tree = await loadResultsTree([written.rootA, written.rootB]);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('report: model usage and cost', () => {
  it('reads valid run_usage.json records and notes a crafted one, counting it nowhere', () => {
    const cleanup = tree.trajectories.find(record => record.dir === dirs.claudeCleanup)!;
    expect(cleanup.usage).toBeUndefined();
    expect(cleanup.notes).toContain(`${RUN_USAGE_FILE} is not valid (its cost is not counted)`);
    expect(tree.trajectories.filter(record => record.usage)).toHaveLength(2);
  });

  it('md: per batch, per role and per model; unknown where any part is unknown', async () => {
    const md = await buildReport(tree, { format: 'md' });
    const section = md.slice(md.indexOf('## Model usage and cost'), md.indexOf('## Trajectories'));
    const lines = section.split('\n').filter(line => line.startsWith('|'));
    const cells = (line: string) => line.split('|').map(cell => cell.trim());
    const byScope = Object.fromEntries(lines.slice(2).map(line => [cells(line)[2], cells(line)]));
    // the batch holds 3 runs, one without a valid record: its total cost is unknown
    expect(byScope['all (1 run(s) without run_usage.json)']!.slice(3)).toEqual([
      '2',
      '7',
      '7010',
      '3505',
      '0',
      '455',
      '0',
      'unknown',
      '',
    ]);
    expect(byScope.agent!.slice(3, 5)).toEqual(['2', '5']);
    expect(byScope.agent!.at(-2)).toBe('$0.6250');
    expect(byScope['model claude-opus-4-7']!.at(-2)).toBe('$0.6250');
    expect(byScope['model gemini-x']!.at(-2)).toBe('unknown');
    expect(md).toMatch(/\| \$0\.7500 \|/);
  });

  it('csv: the run totals on each row of the run; an unknown cost says unknown', async () => {
    const csv = await buildReport(tree, { format: 'csv' });
    const ransomware = csv.split('\n').find(line => line.endsWith(dirs.claudeRansomware!))!;
    expect(ransomware).toContain(',4,5000,2500,0,350,0,0.75,');
    const mailStop = csv.split('\n').find(line => line.endsWith(dirs.claudeMailStop!))!;
    expect(mailStop).toContain(',3,2010,1005,0,105,0,unknown,');
  });

  it("html: the usage table in the overview, each run's cost in its detail", async () => {
    const html = await buildReport(tree);
    const json = <T>(id: string): T =>
      JSON.parse(
        new RegExp(`<script type="application/json" id="${id}">(.*?)</script>`).exec(html)![1]!,
      ) as T;
    const data = json<PageData>('osharm-data');
    expect(data.usage).toContain('<td>all (1 run(s) without run_usage.json)</td>');
    expect(data.usage).toContain('<td>model gemini-x</td>');
    expect(data.usage).toContain('<td>$0.6250</td>');
    expect(html).toContain('<section id="usage-section" hidden><h2>Model usage and cost</h2>');
    const costOf = (dir: string) => {
      const id = data.trajectories.find(item => dir.endsWith(item.relativeDir))!.id;
      return json<TrajectoryDetail>(`tr-${id}`).cost;
    };
    expect(costOf(dirs.claudeRansomware!)).toBe('$0.7500');
    expect(costOf(dirs.claudeMailStop!)).toBe('unknown');
    expect(costOf(dirs.claudeCleanup!)).toBeNull();
  });
});
