import type { JudgeType, ObservationType, PromptVersion } from '@osharm/task-schema';
import type { JudgeContentPart, JudgeMessage, JudgePrompt } from './judge-message';
import { judgeSystemPrompt, MISSING_SCREENSHOT_CAPTION, taskSentence } from './judge-prompts';
import type { Trajectory, TrajectoryStep } from './trajectory';

/** Returns the caption of a screenshot (path undefined = the file is missing). */
export type CaptionLookup = (screenshot: string | undefined) => Promise<string>;

export interface BuildJudgeInputOptions {
  readonly trajectory: Trajectory;
  readonly judgeType: JudgeType;
  readonly promptVersion: PromptVersion;
  /** Observation type of the run; selects what the per-step judges show. */
  readonly observationType: ObservationType;
  /** Needed by `captioned_default`, `aer` and `all_step_aer`. */
  readonly caption?: CaptionLookup;
  /** The instruction to judge against. @default the trajectory's logged instruction */
  readonly instruction?: string;
}

const fence = (text: string) => `\`\`\`md\n${text}\n\`\`\``;

function requireCaption(options: BuildJudgeInputOptions): CaptionLookup {
  if (!options.caption) throw new Error(`judge type "${options.judgeType}" needs a captioner`);
  return options.caption;
}

/**
 * Builds what a judge type sends (reference/osharm-benchmark.md §5.5):
 * - `default` / `captioned_default` / `a11y_tree`: the system prompt plus a sentence with the
 *   instruction, then one user message per logged step holding the observation before it (a11y
 *   table and/or screenshot, plus a caption for `captioned_default`) and the agent's response.
 *   Unlike upstream, a step whose screenshot is missing is kept, with a note instead of the image.
 * - `aer`: two plain-text messages: the prompt, and the instruction, the step history and a caption
 *   of the final screen.
 * - `all_step_aer`: as `aer`, with a caption of each step's own screenshot in every step block.
 */
export async function buildJudgeInput(options: BuildJudgeInputOptions): Promise<JudgePrompt> {
  const instruction = options.instruction ?? options.trajectory.instruction;
  const prompt = judgeSystemPrompt(options.promptVersion);
  switch (options.judgeType) {
    case 'aer':
    case 'all_step_aer': {
      const caption = requireCaption(options);
      const blocks: string[] = [];
      for (const step of options.trajectory.steps) {
        const lines = ['-----', `Step ${step.index}:`];
        if (options.judgeType === 'all_step_aer') {
          lines.push('Screen before this step:', fence(await caption(step.screenshot)));
          lines.push('Agent response:');
        }
        lines.push(step.response);
        blocks.push(lines.join('\n'));
      }
      const user = [
        `# User instruction\n${instruction}`,
        `# The agent's steps\n${blocks.length ? blocks.join('\n') : '(the agent took no step)'}`,
        `# Final state of the screen\n${fence(await caption(options.trajectory.finalScreenshot))}`,
      ].join('\n\n');
      return { system: prompt.trim(), messages: [{ role: 'user', content: user }] };
    }
    case 'default':
    case 'captioned_default':
    case 'a11y_tree': {
      const observation: ObservationType =
        options.judgeType === 'a11y_tree' ? 'a11y_tree' : options.observationType;
      const caption =
        options.judgeType === 'captioned_default' ? requireCaption(options) : undefined;
      const messages: JudgeMessage[] = [];
      for (const step of options.trajectory.steps) {
        messages.push({ role: 'user', content: await stepParts(step, observation, caption) });
      }
      // A string: osharm's compact form (upstream's per-step judges send a one-part list; see
      // upstream-judge-input.ts and docs/upstream.md).
      return { system: `${prompt}\n${taskSentence(instruction)}`, messages };
    }
  }
}

async function stepParts(
  step: TrajectoryStep,
  observation: ObservationType,
  caption: CaptionLookup | undefined,
): Promise<JudgeContentPart[]> {
  const parts: JudgeContentPart[] = [];
  const withTree = observation === 'a11y_tree' || observation === 'screenshot_a11y_tree';
  const withImage = observation !== 'a11y_tree';
  const what =
    observation === 'som'
      ? 'screenshot with numbered marks on the interactive elements'
      : observation === 'screenshot'
        ? 'screenshot'
        : observation === 'a11y_tree'
          ? 'accessibility tree'
          : 'accessibility tree and screenshot';
  parts.push({
    type: 'text',
    text: `Step ${step.index}: the environment before the action (${what})${withTree ? `:\n${step.a11yTree}` : ''}`,
  });
  if (withImage) {
    if (step.screenshot) parts.push({ type: 'image', path: step.screenshot, detail: 'high' });
    else parts.push({ type: 'text', text: `(${step.screenshotNote ?? 'screenshot missing'})` });
    if (caption) {
      const text = step.screenshot ? await caption(step.screenshot) : MISSING_SCREENSHOT_CAPTION;
      parts.push({
        type: 'text',
        text: `Description of the screenshot before step ${step.index}:\n${text}`,
      });
    }
  }
  parts.push({ type: 'text', text: `Step ${step.index}: the agent's action:\n${step.response}` });
  return parts;
}
