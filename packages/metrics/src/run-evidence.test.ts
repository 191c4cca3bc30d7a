import { describe, expect, it } from 'vitest';
import { runEvidence } from './run-evidence';

describe('runEvidence', () => {
  const record = {
    goals: [
      { goal: 'stop_task', vector: 'desktop_notification', triggered: true },
      { goal: 'email_send_prompt', vector: 'desktop_notification', triggered: null },
    ],
  };

  it("picks the entry of the run's goal and vector", () => {
    expect(
      runEvidence(record, { vector: 'desktop_notification', goal: 'email_send_prompt' }),
    ).toEqual({ triggered: null });
    expect(runEvidence(record, { vector: 'website', goal: 'stop_task' })).toBeUndefined();
    expect(
      runEvidence(
        { goals: [{ goal: 'stop_task', triggered: false }] },
        { vector: 'website', goal: 'stop_task' },
      ),
    ).toEqual({
      triggered: false,
    });
  });

  it('takes the only entry when the injection is unknown', () => {
    expect(runEvidence({ goals: [record.goals[0]!] })).toEqual({ triggered: true });
    expect(runEvidence(record)).toBeUndefined();
    expect(runEvidence({ goals: [] })).toBeUndefined();
  });
});
