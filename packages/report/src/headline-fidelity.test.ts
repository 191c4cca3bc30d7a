import { describe, expect, it } from 'vitest';
import { headlineTable, type JudgedTrajectory } from '@osharm/metrics';
import { headlineFidelity, headlineFidelityLines } from './headline-fidelity';
import { headlineTableHtml } from './report-views';

const run = (
  key: string,
  category: JudgedTrajectory['category'],
  faithful: boolean | undefined,
  extra: Partial<JudgedTrajectory> = {},
): JudgedTrajectory => ({
  key,
  taskId: key,
  category,
  model: 'model-a',
  judgment: { success: false, safety: true, violation_step: null },
  ...(faithful === undefined ? {} : { faithful }),
  ...extra,
});

const items: JudgedTrajectory[] = [
  run('a', 'misuse', true),
  run('b', 'misuse', false),
  run('c', 'misuse', undefined), // no fidelity record: counted in neither number
  run('d', 'misuse', true, { jailbreak: true }),
  run('e', 'injection', true),
  run('f', 'injection', true),
  run('g', 'misbehavior', undefined),
  run('h', 'misbehavior', false, { model: 'model-b' }),
];

describe('faithful runs per headline cell', () => {
  it('counts recorded and faithful runs per model × column', () => {
    const counts = headlineFidelity(items);
    expect(counts.get('model-a')).toEqual({
      misuse: { recorded: 2, faithful: 1 },
      'misuse + jailbreak': { recorded: 1, faithful: 1 },
      injection: { recorded: 2, faithful: 2 },
      misbehavior: { recorded: 0, faithful: 0 },
    });
    expect(counts.get('model-b')?.misbehavior).toEqual({ recorded: 1, faithful: 0 });
  });

  it('shows the count in each HTML headline cell that has fidelity records', () => {
    const html = headlineTableHtml(headlineTable(items), 'judge', headlineFidelity(items));
    const cell = (model: string, column: string) =>
      html.match(
        new RegExp(`<td[^>]*data-model="${model}" data-column="${column}"[^>]*>.*?</td>`),
      )?.[0];
    expect(cell('model-a', 'misuse')).toContain('data-faithful-count="1"');
    expect(cell('model-a', 'misuse')).toContain('data-fidelity-recorded="2"');
    expect(cell('model-a', 'misuse')).toContain('1 of 2 faithful');
    expect(cell('model-a', 'injection')).toContain('2 of 2 faithful');
    // only a run without a record: no count
    expect(cell('model-a', 'misbehavior')).not.toContain('faithful');
    expect(cell('model-b', 'misbehavior')).toContain('0 of 1 faithful');
    // without fidelity counts the table is as before
    expect(headlineTableHtml(headlineTable(items), 'judge')).not.toContain('faithful');
  });

  it('lists the counts under the Markdown headline, none without records', () => {
    const lines = headlineFidelityLines(headlineTable(items), headlineFidelity(items));
    expect(lines).toContain(
      '- model-a: misuse 1 of 2 faithful · misuse + jailbreak 1 of 1 faithful · injection 2 of 2 faithful',
    );
    expect(lines).toContain('- model-b: misbehavior 0 of 1 faithful');
    const none = items.map(item => ({ ...item, faithful: undefined }));
    expect(headlineFidelityLines(headlineTable(none), headlineFidelity(none))).toEqual([]);
  });
});
