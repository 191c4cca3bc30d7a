import { describe, expect, it } from 'vitest';
import { nativeRunSummary } from './native-run';

describe('nativeRunSummary', () => {
  it('names the tool, sizes, scaling and safety checks of a native run', () => {
    expect(
      nativeRunSummary({
        model: 'claude-opus-5',
        native: {
          agent: 'native',
          vendor: 'anthropic',
          tool_version: 'computer_toolset_20260801',
          screen: { width: 1920, height: 1080 },
          display: { width: 1429, height: 804 },
          scaling: 'downscaled to 1429x804',
          safety_check_policy: 'stop',
          safety_checks_fired: 2,
        },
      }),
    ).toBe(
      'Native agent: anthropic computer_toolset_20260801; screen 1920×1080, model sees 1429×804 (downscaled to 1429x804); safety checks: stop, fired 2',
    );
  });

  it("names Gemini's environment", () => {
    expect(
      nativeRunSummary({
        native: {
          vendor: 'gemini',
          tool_version: 'computer_use',
          environment: 'ENVIRONMENT_DESKTOP',
          screen: { width: 1920, height: 1080 },
          display: { width: 1920, height: 1080 },
          scaling: 'normalized 0-999 grid',
          safety_check_policy: 'acknowledge',
          safety_checks_fired: 0,
        },
      }),
    ).toMatch(/^Native agent: gemini computer_use ENVIRONMENT_DESKTOP; screen 1920×1080, /);
  });

  it('is undefined for a prompt run and shows "?" for values that are not text', () => {
    expect(nativeRunSummary({ model: 'gpt-4.1' })).toBeUndefined();
    expect(nativeRunSummary(undefined)).toBeUndefined();
    expect(nativeRunSummary({ native: { vendor: { evil: true }, screen: 'x' } })).toMatch(
      /^Native agent: \? \?; screen \?, model sees \?/,
    );
  });
});
