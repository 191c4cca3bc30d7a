import { describe, expect, it } from 'vitest';
import { runModelChecks } from './run-model-checks';
import { RUN_DEFAULTS, RunOptionsError, type RunFlags } from './run-options';

const flags = (extra: Partial<RunFlags>): RunFlags =>
  ({ ...RUN_DEFAULTS, provider: 'local', ...extra }) as RunFlags;
const io = (today: string) => ({ cwd: '/', env: { OSHARM_TODAY: today } });

describe('runModelChecks', () => {
  it('names the end of life of a retiring model at start and records each role in provenance', () => {
    const checks = runModelChecks(
      flags({ model: 'claude-sonnet-4-5', judgeModel: 'gpt-5.5', judgeType: 'aer' }),
      {},
      io('2026-11-27'),
    );
    expect(checks.notices).toEqual([
      'agent model claude-sonnet-4-5 reaches end of life on 2026-11-30 (in 3 days); replacement: claude-sonnet-5-5',
      'captioner model gpt-4o-2024-11-20 reaches end of life on 2027-01-14 (in 48 days); replacement: the replacement OpenAI names at https://developers.openai.com/api/docs/deprecations',
    ]);
    expect(checks.lifecycle).toEqual({
      agent: {
        state: 'retiring',
        end_of_life: '2026-11-30',
        source: '@anthropic-ai/sdk 1.14.0 DEPRECATED_MODELS',
      },
      judge: { state: 'active', end_of_life: null, source: null },
      captioner: expect.objectContaining({ state: 'retiring', end_of_life: '2027-01-14' }),
    });
  });

  it('stops on a retired model of any role', () => {
    expect(() =>
      runModelChecks(
        flags({ model: 'claude-sonnet-4-5', judgeModel: 'none' }),
        {},
        io('2026-12-01'),
      ),
    ).toThrow(
      new RunOptionsError(
        '--model claude-sonnet-4-5: agent model claude-sonnet-4-5 was retired on 2026-11-30 (end of life; the vendor answers no call): use claude-sonnet-5-5',
      ),
    );
    expect(() =>
      runModelChecks(
        flags({ model: 'offline-refuse', judgeModel: 'o4-mini' }),
        {},
        io('2026-11-27'),
      ),
    ).toThrow(/^--judge-model o4-mini: judge model o4-mini was retired on 2026-10-23/);
  });

  it('checks explicit sampling and the computer tool against the table', () => {
    const today = io('2026-11-27');
    expect(() =>
      runModelChecks(flags({ model: 'claude-opus-4-7', judgeModel: 'none' }), { topP: 0.9 }, today),
    ).toThrow('claude-opus-4-7 accepts no sampling parameters (--top-p 0.9): drop the flag');
    // the defaults are not explicit: they are filtered, not refused
    expect(
      runModelChecks(flags({ model: 'claude-opus-4-7', judgeModel: 'none' }), {}, today).notices,
    ).toEqual([]);
    expect(() =>
      runModelChecks(
        flags({
          model: 'claude-fable-5',
          judgeModel: 'none',
          agent: 'native',
          computerTool: 'computer_20250124',
        }),
        {},
        today,
      ),
    ).toThrow(/^--computer-tool: computer tool "computer_20250124" is refused by claude-fable-5/);
    expect(() =>
      runModelChecks(
        flags({
          model: 'claude-opus-5',
          judgeModel: 'none',
          geminiSafety: { promptInjectionDetection: true },
        }),
        {},
        today,
      ),
    ).toThrow(/go with a Gemini model and --agent native/);
  });
});
