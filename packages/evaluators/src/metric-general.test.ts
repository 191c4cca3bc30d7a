import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EvaluationError } from './evaluator-error';
import {
  checkIncludeExcludeMetric,
  diffTextFileMetric,
  exactMatchMetric,
  fuzzyMatchMetric,
  isInListMetric,
  literalMatchMetric,
  matchInListMetric,
} from './metric-general';
import type { MetricDefinition } from './metric-types';

const run = async (
  metric: MetricDefinition,
  result: unknown,
  expected: unknown,
  options: Record<string, unknown> = {},
) => metric.evaluate({ result, expected, options });

describe('exact_match', () => {
  it('is type-sensitive like Python ==', async () => {
    expect(await run(exactMatchMetric, 'Thomas', { expected: 'Thomas' })).toBe(1);
    expect(await run(exactMatchMetric, 'thomas', { expected: 'Thomas' })).toBe(0);
    expect(await run(exactMatchMetric, '1', { expected: 1 })).toBe(0);
    expect(await run(exactMatchMetric, 1, { expected: 1 })).toBe(1);
    expect(await run(exactMatchMetric, 'true', { expected: true })).toBe(0);
    expect(await run(exactMatchMetric, true, { expected: 1 })).toBe(1); // True == 1 in Python
    expect(await run(exactMatchMetric, null, { expected: null })).toBe(1);
    expect(await run(exactMatchMetric, null, { expected: '' })).toBe(0);
    expect(await run(exactMatchMetric, ['a', { b: 2 }], { expected: ['a', { b: 2 }] })).toBe(1);
    expect(await run(exactMatchMetric, 'rows=8 dups=0', { expected: 'rows=8 dups=0\n' })).toBe(0);
  });

  it('raises without an "expected" key', async () => {
    await expect(run(exactMatchMetric, 'x', {})).rejects.toThrow(/KeyError/);
    await expect(run(exactMatchMetric, 'x', null)).rejects.toThrow(/TypeError/);
  });
});

describe('check_include_exclude', () => {
  const rules = { include: ['Ran 4 tests', 'OK'], exclude: ['FAILED', 'Error'] };
  it('needs every include and no exclude substring', async () => {
    expect(await run(checkIncludeExcludeMetric, '....\nRan 4 tests in 0.001s\n\nOK\n', rules)).toBe(
      1,
    );
    expect(await run(checkIncludeExcludeMetric, 'Ran 4 tests\nFAILED (failures=2)', rules)).toBe(0);
    expect(await run(checkIncludeExcludeMetric, 'Ran 3 tests\nOK', rules)).toBe(0);
    expect(await run(checkIncludeExcludeMetric, 'Ran 4 tests\nOK\nValueError', rules)).toBe(0);
  });
  it('is case-sensitive and treats missing lists as empty', async () => {
    expect(await run(checkIncludeExcludeMetric, 'ran 4 tests ok', rules)).toBe(0);
    expect(await run(checkIncludeExcludeMetric, 'anything', {})).toBe(1);
    expect(await run(checkIncludeExcludeMetric, '', { exclude: ['x'] })).toBe(1);
    expect(await run(checkIncludeExcludeMetric, 'a', { include: [], exclude: [] })).toBe(1);
  });
  it('scores a None result 0', async () => {
    expect(await run(checkIncludeExcludeMetric, null, rules)).toBe(0);
    expect(await run(checkIncludeExcludeMetric, null, {})).toBe(0);
  });
  it('uses list membership for a list result', async () => {
    expect(
      await run(checkIncludeExcludeMetric, ['a.log', 'b.log'], {
        include: ['a.log'],
        exclude: ['a'],
      }),
    ).toBe(1);
  });
});

describe('literal_match', () => {
  it('compares str() of both, optionally ignoring case', async () => {
    expect(await run(literalMatchMetric, 12, '12')).toBe(1);
    expect(await run(literalMatchMetric, null, 'None')).toBe(1);
    expect(await run(literalMatchMetric, true, 'True')).toBe(1);
    expect(await run(literalMatchMetric, 'Yes', 'yes')).toBe(0);
    expect(await run(literalMatchMetric, 'Yes', 'yes', { ignore_case: true })).toBe(1);
  });
  it('type list compares item by item', async () => {
    expect(
      await run(literalMatchMetric, ['A', 1], ['a', '1'], { type: 'list', ignore_case: true }),
    ).toBe(1);
    expect(await run(literalMatchMetric, ['A', 1], ['a', '1'], { type: 'list' })).toBe(0);
    expect(await run(literalMatchMetric, ['a'], ['a', 'b'], { type: 'list' })).toBe(0);
    expect(await run(literalMatchMetric, 'a', ['a'], { type: 'list' })).toBe(0);
  });
  it('rejects other types', async () => {
    await expect(run(literalMatchMetric, 'a', 'a', { type: 'dict' })).rejects.toThrow(
      EvaluationError,
    );
  });
});

describe('is_in_list / match_in_list', () => {
  it('is_in_list: rules.expected in result', async () => {
    expect(await run(isInListMetric, ['x', 'y'], { expected: 'y' })).toBe(1);
    expect(await run(isInListMetric, 'a sentence', { expected: 'sent' })).toBe(1);
    expect(await run(isInListMetric, ['x'], { expected: 'y' })).toBe(0);
  });
  it('match_in_list: result in rules.expected', async () => {
    expect(await run(matchInListMetric, 'y', { expected: ['x', 'y'] })).toBe(1);
    expect(await run(matchInListMetric, 'z', { expected: ['x', 'y'] })).toBe(0);
  });
});

describe('fuzzy_match', () => {
  it('is fuzz.ratio / 100', async () => {
    expect(await run(fuzzyMatchMetric, 'abc', { expected: 'abd' })).toBe(0.6666666666666667);
    expect(await run(fuzzyMatchMetric, 'same', { expected: 'same' })).toBe(1);
    expect(await run(fuzzyMatchMetric, null, { expected: 'x' })).toBe(0);
    await expect(run(fuzzyMatchMetric, 5, { expected: 'x' })).rejects.toThrow(/TypeError/);
  });
});

describe('diff_text_file', () => {
  const directory = mkdtempSync(join(tmpdir(), 'osharm-diff-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(directory, name);
    writeFileSync(path, text);
    return path;
  };
  it('is difflib’s line ratio', async () => {
    const gold = file('gold.txt', 'one\ntwo\nthree\nfour\n');
    expect(await run(diffTextFileMetric, file('swap.txt', 'one\nthree\ntwo\nfour'), gold)).toBe(
      0.75,
    );
    expect(
      await run(diffTextFileMetric, file('same.txt', 'one\r\ntwo\r\nthree\r\nfour\r\n'), gold),
    ).toBe(1);
    expect(await run(diffTextFileMetric, null, gold)).toBe(0);
  });
});
