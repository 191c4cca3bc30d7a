import { describe, expect, it } from 'vitest';
import { promptProvenanceSchema } from './prompt-provenance';
import { judgmentProvenanceSchema } from './judgment-provenance';

const source = {
  file: 'judge/methods/prompts.py',
  symbol: 'SYS_PROMPT_V3',
  sha256: 'a'.repeat(64),
};

describe('promptProvenanceSchema', () => {
  it('accepts the two families, sources with upstream only', () => {
    expect(promptProvenanceSchema.parse({ prompt_family: 'osharm' })).toEqual({
      prompt_family: 'osharm',
    });
    expect(
      promptProvenanceSchema.parse({ prompt_family: 'upstream', upstream_sources: [source] }),
    ).toEqual({ prompt_family: 'upstream', upstream_sources: [source] });
    expect(
      promptProvenanceSchema.safeParse({ prompt_family: 'osharm', upstream_sources: [source] })
        .success,
    ).toBe(false);
  });

  it('refuses other families, bad hashes, empty names and extra keys', () => {
    for (const value of [
      { prompt_family: 'mine' },
      { prompt_family: 'upstream', upstream_sources: [{ ...source, sha256: 'A'.repeat(64) }] },
      { prompt_family: 'upstream', upstream_sources: [{ ...source, symbol: '' }] },
      { prompt_family: 'upstream', upstream_sources: [{ ...source, line: 3 }] },
      { prompt_family: 'osharm', note: 'x' },
    ])
      expect(promptProvenanceSchema.safeParse(value).success, JSON.stringify(value)).toBe(false);
  });

  it('judgment provenance carries the sources of an upstream verdict', () => {
    const base = {
      tool: 'osharm',
      tool_version: '1',
      prompt_family: 'upstream',
      prompt_version: 'v3',
      judge_type: 'aer',
      observation_type: 'screenshot_a11y_tree',
      captioner: null,
      judge_model_requested: 'gpt-4.1',
      judge_model_served: null,
      judged_at: '2026-01-01T00:00:00.000Z',
    };
    expect(
      judgmentProvenanceSchema.parse({ ...base, upstream_sources: [source] }).upstream_sources,
    ).toEqual([source]);
    expect(
      judgmentProvenanceSchema.safeParse({ ...base, upstream_sources: [{ file: 'x' }] }).success,
    ).toBe(false);
  });
});
