import { describe, expect, it } from 'vitest';
import { parseHumanLabels } from './human-labels';
import { MetricsInputError } from './metrics-input-error';

/** The message of the MetricsInputError `attempt` throws (fails if it throws something else). */
function errorOf(attempt: () => unknown): string {
  try {
    attempt();
  } catch (error) {
    expect(MetricsInputError.isInstance(error)).toBe(true);
    return (error as MetricsInputError).message;
  }
  throw new Error('expected a MetricsInputError');
}

describe('parseHumanLabels (csv)', () => {
  it('reads trajectory,success,safety with every accepted spelling; empty means unlabelled', () => {
    const text = [
      'trajectory,success,safety',
      'o4-mini/os/_ransomware,true,false',
      'o4-mini/os/_a,1,0',
      'o4-mini/os/_b, YES ,No',
      'o4-mini/os/_c,,TRUE',
      '',
    ].join('\r\n');
    expect(parseHumanLabels(text, 'csv')).toEqual([
      { key: 'o4-mini/os/_ransomware', success: true, safety: false },
      { key: 'o4-mini/os/_a', success: true, safety: false },
      { key: 'o4-mini/os/_b', success: true, safety: false },
      { key: 'o4-mini/os/_c', safety: true },
    ]);
  });

  it('takes columns in any order and case, ignores others, a BOM, blank lines and quoted commas', () => {
    const text =
      '\uFEFFSafety,notes,Trajectory\nfalse,"deleted files, then ""apologised""",os/_x\n\n,,os/_y\n';
    expect(parseHumanLabels(text, 'csv')).toEqual([
      { key: 'os/_x', safety: false },
      { key: 'os/_y' },
    ]);
  });

  it('accepts a quoted field spanning lines', () => {
    expect(
      parseHumanLabels('trajectory,notes,safety\nos/_x,"line one\nline two",1\n', 'csv'),
    ).toEqual([{ key: 'os/_x', safety: true }]);
  });

  it('names row and column of a bad value (row 1 is the header; line shown when it differs)', () => {
    expect(
      errorOf(() => parseHumanLabels('trajectory,success,safety\nos/_a,true,maybe\n', 'csv')),
    ).toBe('labels CSV row 2, column "safety": expected true, false, 1, 0, yes or no, got "maybe"');
    expect(
      errorOf(() =>
        parseHumanLabels('trajectory,notes,success\nos/_a,"two\nlines",true\nos/_b,,2\n', 'csv'),
      ),
    ).toBe(
      'labels CSV row 3 (line 4), column "success": expected true, false, 1, 0, yes or no, got "2"',
    );
  });

  it('rejects a bad header', () => {
    expect(errorOf(() => parseHumanLabels('', 'csv'))).toBe(
      'labels CSV is empty: expected a header row "trajectory,success,safety"',
    );
    expect(errorOf(() => parseHumanLabels('dir,success\nos/_a,1', 'csv'))).toBe(
      'labels CSV row 1: no "trajectory" column (header: dir,success)',
    );
    expect(errorOf(() => parseHumanLabels('trajectory,notes\nos/_a,x', 'csv'))).toBe(
      'labels CSV row 1: needs a "success" or "safety" column (header: trajectory,notes)',
    );
    expect(errorOf(() => parseHumanLabels('trajectory,safety,Safety\n', 'csv'))).toBe(
      'labels CSV row 1: column "safety" appears twice (columns 2 and 3)',
    );
  });

  it('rejects ragged rows, empty and duplicate trajectories', () => {
    expect(errorOf(() => parseHumanLabels('trajectory,safety\nos/_a,true,extra\n', 'csv'))).toBe(
      'labels CSV row 2: 3 cells, but the header has 2 columns',
    );
    expect(errorOf(() => parseHumanLabels('trajectory,safety\n  ,true\n', 'csv'))).toBe(
      'labels CSV row 2, column "trajectory": empty trajectory',
    );
    expect(
      errorOf(() => parseHumanLabels('trajectory,safety\nos/_a,true\nos\\_a\\,false\n', 'csv')),
    ).toBe(
      'labels CSV row 3, column "trajectory": trajectory "os\\_a\\" was already labelled in row 2',
    );
  });

  it('rejects broken quoting with the line and column', () => {
    expect(errorOf(() => parseHumanLabels('trajectory,safety\nos/_a,"true\n', 'csv'))).toBe(
      'CSV line 2, column 2: unterminated quoted field',
    );
    expect(errorOf(() => parseHumanLabels('trajectory,safety\n"os/_a"x,true\n', 'csv'))).toBe(
      'CSV line 2, column 1: unexpected "x" after a closing quote',
    );
  });
});

describe('parseHumanLabels (json)', () => {
  it('reads an object keyed by dir, with booleans, 0/1, words and null', () => {
    const text = JSON.stringify({
      'o4-mini/os/_ransomware': { success: true, safety: false },
      'o4-mini/os/_a': { success: 1, safety: 'no', notes: 'ignored' },
      'o4-mini/os/_b': { success: null },
    });
    expect(parseHumanLabels(text, 'json')).toEqual([
      { key: 'o4-mini/os/_ransomware', success: true, safety: false },
      { key: 'o4-mini/os/_a', success: true, safety: false },
      { key: 'o4-mini/os/_b' },
    ]);
  });

  it('reads an array of { trajectory | key, success, safety }', () => {
    const text = JSON.stringify([
      { trajectory: 'os/_a', safety: true },
      { key: 'os/_b', success: false },
    ]);
    expect(parseHumanLabels(text, 'json')).toEqual([
      { key: 'os/_a', safety: true },
      { key: 'os/_b', success: false },
    ]);
  });

  it('names the entry and field of a bad value', () => {
    expect(errorOf(() => parseHumanLabels('{"os/_a": {"safety": "maybe"}}', 'json'))).toBe(
      'labels JSON ["os/_a"].safety: expected a boolean or one of 0, 1, "true", "false", "yes", "no"; got "maybe"',
    );
    expect(
      errorOf(() => parseHumanLabels('[{"trajectory": "os/_a"}, {"safety": true}]', 'json')),
    ).toBe('labels JSON [1].trajectory: expected the trajectory dir as a string, got nothing');
    expect(errorOf(() => parseHumanLabels('[{"key": "os/_a", "success": 2}]', 'json'))).toBe(
      'labels JSON [0].success: expected a boolean or one of 0, 1, "true", "false", "yes", "no"; got 2',
    );
    expect(errorOf(() => parseHumanLabels('{"os/_a": true}', 'json'))).toBe(
      'labels JSON ["os/_a"]: expected an object with success / safety, got true',
    );
    expect(errorOf(() => parseHumanLabels('[{"key": "a/b"}, {"key": "a\\\\b/"}]', 'json'))).toBe(
      'labels JSON [1]: trajectory "a\\b/" was already labelled at labels JSON [0]',
    );
  });

  it('rejects text that is not JSON or not an object / array, and unknown formats', () => {
    expect(errorOf(() => parseHumanLabels('{oops', 'json'))).toMatch(
      /^labels JSON is not valid JSON: /,
    );
    expect(errorOf(() => parseHumanLabels('42', 'json'))).toBe(
      'labels JSON: expected an object keyed by trajectory dir or an array, got 42',
    );
    let caught: unknown;
    try {
      parseHumanLabels('', 'yaml' as 'csv');
    } catch (error) {
      caught = error;
    }
    expect((caught as MetricsInputError).argument).toBe('format');
  });
});
