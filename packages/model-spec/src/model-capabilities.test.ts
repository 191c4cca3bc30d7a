import { describe, expect, it } from 'vitest';
import { modelCapabilities } from './model-capabilities';
import { acceptedSampling, computerToolFor, samplingRefusal } from './model-capability-checks';
import { describeLifecycle, modelLifecycle } from './model-retirements';

const day = (iso: string) => new Date(`${iso}T12:00:00Z`);

describe('the capability table', () => {
  it('matches ids of the SDK lists and their dated snapshots', () => {
    expect(modelCapabilities('claude-fable-5', 'anthropic')).toMatchObject({
      known: true,
      family: 'claude-fable-5',
      sampling: 'none',
      thinking: 'always',
      structuredOutput: 'output_config.format',
      defaultComputerTool: 'computer_toolset_20260801',
    });
    expect(modelCapabilities('claude-sonnet-4-5-20250929', 'anthropic')).toMatchObject({
      known: true,
      defaultComputerTool: 'computer_20250124',
      sampling: 'one-of',
    });
    expect(modelCapabilities('gpt-4.1-2025-04-14', 'openai')).toMatchObject({
      known: true,
      sampling: 'any',
    });
    expect(modelCapabilities('gpt-5.5', 'openai')).toMatchObject({
      sampling: 'none',
      thinking: 'reasoning',
    });
  });

  it('gives an unknown model a conservative default and one line naming it', () => {
    const unknown = modelCapabilities('claude-opus-9', 'anthropic');
    expect(unknown.known).toBe(false);
    expect(unknown.assumed).toBe(
      'claude-opus-9: not in the model capability table; assumed no temperature / top_p sent, structured output by a forced tool, computer tool computer_20251124',
    );
    expect(modelCapabilities('Qwen/Qwen2.5-VL-72B-Instruct', 'openai')).toMatchObject({
      known: false,
      sampling: 'any',
    });
    expect(modelCapabilities('o9-mini', 'openai')).toMatchObject({
      known: false,
      sampling: 'none',
    });
    // a Claude id on the OpenAI wire (an OpenAI-compatible proxy) is not the table's Claude row
    expect(modelCapabilities('claude-fable-5', 'openai').known).toBe(false);
  });

  it('sends only the sampling a family takes, and refuses explicit values it does not', () => {
    const asked = { temperature: 1, topP: 0.9 };
    expect(acceptedSampling(modelCapabilities('claude-opus-4-7', 'anthropic'), asked)).toEqual({});
    expect(acceptedSampling(modelCapabilities('claude-sonnet-4-6', 'anthropic'), asked)).toEqual({
      temperature: 1,
    });
    expect(acceptedSampling(modelCapabilities('gpt-4.1', 'openai'), asked)).toEqual(asked);
    const flags = { temperature: '--temperature', topP: '--top-p' };
    expect(
      samplingRefusal(
        modelCapabilities('claude-opus-4-7', 'anthropic'),
        { temperature: 0.5 },
        flags,
      ),
    ).toBe('claude-opus-4-7 accepts no sampling parameters (--temperature 0.5): drop the flag');
    expect(
      samplingRefusal(modelCapabilities('claude-sonnet-5', 'anthropic'), { temperature: 1 }, flags),
    ).toBeUndefined();
    expect(
      samplingRefusal(modelCapabilities('claude-sonnet-5', 'anthropic'), { topP: 0.5 }, flags),
    ).toMatch(/only the default sampling/);
    expect(
      samplingRefusal(modelCapabilities('claude-haiku-4-5', 'anthropic'), asked, flags),
    ).toMatch(/not both/);
    expect(samplingRefusal(modelCapabilities('gpt-4.1', 'openai'), asked, flags)).toBeUndefined();
  });

  it('picks the computer tool from the table; an override the model refuses is a clear error', () => {
    expect(computerToolFor(modelCapabilities('claude-mythos-5-1', 'anthropic'))).toBe(
      'computer_toolset_20260801',
    );
    expect(computerToolFor(modelCapabilities('claude-opus-4-7', 'anthropic'))).toBe(
      'computer_20251124',
    );
    expect(() =>
      computerToolFor(modelCapabilities('claude-fable-5', 'anthropic'), 'computer_20250124'),
    ).toThrow(
      'computer tool "computer_20250124" is refused by claude-fable-5 (claude-fable-5); it accepts: computer_20251124, computer_toolset_20260801',
    );
    expect(computerToolFor(modelCapabilities('gemini-3.5-flash', 'gemini'))).toBe('computer_use');
  });
});

describe('retirements', () => {
  it('retired from the end-of-life day, retiring within 60 days, else active', () => {
    expect(modelLifecycle('claude-sonnet-4-5', day('2026-11-27'))).toMatchObject({
      state: 'retiring',
      daysLeft: 3,
      retirement: { date: '2026-11-30', replacement: 'claude-sonnet-5-5' },
    });
    expect(modelLifecycle('claude-sonnet-4-5-20250929', day('2026-11-30')).state).toBe('retired');
    expect(modelLifecycle('claude-sonnet-4-5', day('2026-09-01')).state).toBe('active');
    expect(modelLifecycle('computer-use-preview', day('2026-11-27')).state).toBe('retired');
    expect(modelLifecycle('o4-mini', day('2026-11-27')).state).toBe('retired');
    expect(modelLifecycle('gpt-4o-2024-05-13', day('2026-11-27')).state).toBe('retired');
    expect(modelLifecycle('gpt-4o', day('2026-11-27')).state).toBe('retiring');
    expect(modelLifecycle('claude-opus-4-7', day('2026-11-27')).state).toBe('active');
  });

  it('says it in one line', () => {
    expect(
      describeLifecycle(
        'agent',
        'claude-sonnet-4-5',
        modelLifecycle('claude-sonnet-4-5', day('2026-11-29')),
      ),
    ).toBe(
      'agent model claude-sonnet-4-5 reaches end of life on 2026-11-30 (in 1 day); replacement: claude-sonnet-5-5',
    );
    expect(
      describeLifecycle('judge', 'o4-mini', modelLifecycle('o4-mini', day('2026-11-27'))),
    ).toMatch(
      /^judge model o4-mini was retired on 2026-10-23 \(end of life; the vendor answers no call\): use the replacement OpenAI names at https:/,
    );
  });
});
