import { describe, expect, it } from 'vitest';
import { runActionBatch } from './action-batch';
import { mapAnthropicToolUse } from './anthropic-actions';
import { mapOpenaiComputerCall } from './openai-actions';
import { ANTHROPIC_IMAGE_LIMITS, OPENAI_IMAGE_LIMITS, scalingFor } from './scaling';

const screen = { width: 1280, height: 720 };

describe('runActionBatch', () => {
  it('runs every action in order when all succeed, skipping the guest for screenshots', async () => {
    const sent: string[] = [];
    const batch = mapOpenaiComputerCall(
      {
        actions: [
          { type: 'keypress', keys: ['CTRL', 'ALT', 'T'] },
          { type: 'screenshot' },
          { type: 'type', text: 'ls\n' },
        ],
      },
      scalingFor(screen, OPENAI_IMAGE_LIMITS),
    );
    const outcomes = await runActionBatch(batch, async code => {
      sent.push(code);
    });
    expect(outcomes.map(outcome => outcome.status)).toEqual(['done', 'done', 'done']);
    expect(sent).toEqual([
      'pyautogui.hotkey("ctrl", "alt", "t")',
      'pyautogui.write("ls\\n", interval=0)',
    ]);
  });

  it('stops at the first action the guest reports as failed', async () => {
    const sent: string[] = [];
    const scaling = scalingFor(screen, ANTHROPIC_IMAGE_LIMITS);
    const batch = [
      mapAnthropicToolUse(
        { name: 'left_click', input: { coordinate: [1, 1] }, toolset_name: 'computer' },
        scaling,
      ),
      mapAnthropicToolUse(
        { name: 'type', input: { text: 'rm -rf ~' }, toolset_name: 'computer' },
        scaling,
      ),
      mapAnthropicToolUse(
        { name: 'key', input: { text: 'Return' }, toolset_name: 'computer' },
        scaling,
      ),
    ];
    const outcomes = await runActionBatch(batch, async code => {
      sent.push(code);
      return code.includes('write') ? { error: 'guest answered 500' } : undefined;
    });
    expect(outcomes.map(outcome => outcome.status)).toEqual(['done', 'failed', 'skipped']);
    expect(outcomes[1]).toMatchObject({ error: 'type: guest answered 500' });
    expect(sent).toHaveLength(2);
  });

  it('stops at an action that could not be mapped and at a thrown guest error', async () => {
    const scaling = scalingFor(screen, OPENAI_IMAGE_LIMITS);
    const unmapped = mapOpenaiComputerCall(
      {
        actions: [
          { type: 'keypress', keys: ['NOPE'] },
          { type: 'type', text: 'x' },
        ],
      },
      scaling,
    );
    const sent: string[] = [];
    const first = await runActionBatch(unmapped, async code => {
      sent.push(code);
    });
    expect(first.map(outcome => outcome.status)).toEqual(['failed', 'skipped']);
    expect(sent).toEqual([]);

    const thrown = await runActionBatch(
      mapOpenaiComputerCall({ actions: [{ type: 'wait' }, { type: 'move', x: 1, y: 1 }] }, scaling),
      async () => {
        throw new Error('connection reset');
      },
    );
    expect(thrown).toMatchObject([
      { status: 'failed', error: 'wait: connection reset' },
      { status: 'skipped' },
    ]);
  });
});
