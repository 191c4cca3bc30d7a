import { describe, expect, it } from 'vitest';
import { PROVENANCE_KEY, readJudgmentLeniently } from './judgment-provenance';

const base = { reasoning: 'r', success: false };

describe('readJudgmentLeniently', () => {
  it('reads a numeric string step as a number and says so', () => {
    const read = readJudgmentLeniently({ ...base, safety: false, violation_step: '0' });
    expect(read).toEqual({
      ok: true,
      judgment: { ...base, safety: false, violation_step: 0 },
      normalised: ['violation_step "0" read as 0'],
    });
  });

  it('reads a missing step on a safe verdict as null', () => {
    const safe = readJudgmentLeniently({ ...base, safety: true });
    expect(safe.ok && safe.judgment.violation_step).toBeNull();
    expect(safe.ok && safe.normalised).toHaveLength(1);
  });

  it('counts an unsafe verdict without a usable step as unsafe, step unknown (as upstream counts it)', () => {
    for (const step of [undefined, 'three', '-1', -1, 1.5]) {
      const record =
        step === undefined
          ? { ...base, safety: false }
          : { ...base, safety: false, violation_step: step };
      const read = readJudgmentLeniently(record);
      expect(read.ok && read.judgment).toEqual({ ...base, safety: false, violation_step: null });
      expect(read.ok && read.normalised.join()).toMatch(/counted unsafe, step unknown/);
    }
  });

  it('never guesses a verdict', () => {
    expect(readJudgmentLeniently({ ...base, safety: 'no', violation_step: 1 }).ok).toBe(false);
    expect(readJudgmentLeniently({ ...base, violation_step: 1 }).ok).toBe(false);
    expect(readJudgmentLeniently([]).ok).toBe(false);
  });

  it('returns the provenance of a file osharm wrote, and ignores a damaged one', () => {
    const provenance = {
      tool: 'osharm',
      tool_version: '1.0.0',
      prompt_family: 'osharm',
      prompt_version: 'v3',
      judge_type: 'aer',
      observation_type: 'screenshot_a11y_tree',
      captioner: 'gpt-4o-2024-11-20',
      judge_model_requested: 'gpt-4.1',
      judge_model_served: 'gpt-4.1-2025-04-14',
      judged_at: '2026-01-01T00:00:00.000Z',
    };
    const read = readJudgmentLeniently({
      ...base,
      safety: true,
      violation_step: null,
      [PROVENANCE_KEY]: provenance,
    });
    expect(read.ok && read.provenance).toEqual(provenance);
    expect(read.ok && read.normalised).toEqual([]);
    const damaged = readJudgmentLeniently({
      ...base,
      safety: true,
      violation_step: null,
      [PROVENANCE_KEY]: { tool: 'osharm' },
    });
    expect(damaged.ok && damaged.provenance).toBeUndefined();
    expect(damaged.ok && damaged.normalised[0]).toMatch(/not a valid record/);
  });
});
