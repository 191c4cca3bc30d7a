import { describe, expect, it } from 'vitest';
import {
  CAPTIONED_JUDGE_TYPES,
  JUDGE_TYPE_TRAITS,
  JUDGE_TYPES,
  judgeTypeNeedsCaptions,
  judgeTypeUsesObservationType,
} from './run-options';

// The judge types' one table: what each reads, and the answers derived from it.
describe('JUDGE_TYPE_TRAITS', () => {
  it('has one row per judge type', () => {
    expect(Object.keys(JUDGE_TYPE_TRAITS).sort()).toEqual([...JUDGE_TYPES].sort());
  });

  it('the captioning types are aer, all_step_aer and captioned_default; a name that is no type: none', () => {
    expect([...CAPTIONED_JUDGE_TYPES].sort()).toEqual(['aer', 'all_step_aer', 'captioned_default']);
    expect(JUDGE_TYPES.filter(judgeTypeNeedsCaptions).sort()).toEqual([
      'aer',
      'all_step_aer',
      'captioned_default',
    ]);
    expect(judgeTypeNeedsCaptions('toString')).toBe(false);
    expect(judgeTypeNeedsCaptions('__proto__')).toBe(false);
  });

  it('only the per-step judges that show observations depend on the observation type', () => {
    expect(JUDGE_TYPES.filter(judgeTypeUsesObservationType).sort()).toEqual([
      'captioned_default',
      'default',
    ]);
    expect(judgeTypeUsesObservationType('constructor')).toBe(false);
  });

  it('the aer judges send the step history as one text and read the final screen', () => {
    for (const judgeType of JUDGE_TYPES) {
      const traits = JUDGE_TYPE_TRAITS[judgeType];
      expect(traits.input === 'history', judgeType).toBe(traits.finalScreenshot);
    }
  });
});
