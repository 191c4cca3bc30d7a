import { join } from 'node:path';
import {
  TaskValidationError,
  type JudgeType,
  type ObservationType,
  type PromptVersion,
} from '@osharm/task-schema';
import { isTrajErrorLine } from '@osharm/task-schema/internal';
import type { JudgeContentPart, JudgeMessage, JudgePrompt } from './judge-message';
import type { Trajectory } from './trajectory';
import type { UpstreamJudgeTexts } from './upstream-judge-texts';

/**
 * The judge input upstream's judge/methods/*.py build, from an upstream checkout's texts. It
 * follows upstream's code, quirks included (docs/upstream.md lists them):
 * - per-step judges read each step's screenshot by the name better_log.json logs; when that file
 *   is missing the step is left out (with a screenshot observation type);
 * - `aer` / `all_step_aer` caption the final screenshot picked from traj.jsonl's last line (the one
 *   before it when the last is an `Error` line and there are more than two lines, else
 *   step_0.png); a missing final screenshot is aer.py's fixed caption, and stops `all_step_aer`
 *   (upstream raises there);
 * - `all_step_aer` shows that final caption in every step block: upstream's `get_caption` caches
 *   under one path per captioner whatever the image, and the final caption is made first.
 */
export interface UpstreamJudgeInputOptions {
  readonly texts: UpstreamJudgeTexts;
  readonly trajectory: Trajectory;
  readonly judgeType: JudgeType;
  readonly promptVersion: PromptVersion;
  readonly observationType: ObservationType;
  readonly instruction: string;
  /** The caption of an image that exists (from {@link upstreamCaptionImages}). */
  readonly caption: (image: string) => Promise<string>;
}

/** A run upstream's judge code raises on: the same verdict cannot be made. */
function unjudgeable(file: string, message: string): TaskValidationError {
  return new TaskValidationError({ issues: [{ severity: 'error', file, path: '$', message }] });
}

/** A screenshot of the trajectory by the name upstream uses: the real path, or undefined when missing. */
function screenshotByName(trajectory: Trajectory, name: string): string | undefined {
  for (const step of trajectory.steps) {
    if (step.screenshotName === name && step.screenshot && !step.screenshotNote)
      return step.screenshot;
    for (const action of step.executed)
      if (action.screenshotName === name && action.screenshot) return action.screenshot;
  }
  if (trajectory.finalScreenshotName === name) return trajectory.finalScreenshot;
  return undefined;
}

/** The final screenshot as upstream's aer.py picks it: its name, and its path when the file exists. */
export function upstreamFinalScreenshot(trajectory: Trajectory): { name: string; path?: string } {
  const lines = trajectory.trajLines;
  const last = lines.at(-1);
  let name = 'step_0.png';
  if (last && !isTrajErrorLine(last)) name = last.screenshot_file;
  else if (last && lines.length > 2) {
    const before = lines.at(-2)!;
    if (isTrajErrorLine(before))
      throw unjudgeable(
        join(trajectory.dir, 'traj.jsonl'),
        "ends with two Error lines: upstream's aer judges fail on this run",
      );
    name = before.screenshot_file;
  }
  const path = screenshotByName(trajectory, name);
  return path ? { name, path } : { name };
}

/** The logged screenshot of each step that exists (upstream skips the others). */
function stepScreenshot(trajectory: Trajectory, index: number): string | undefined {
  const step = trajectory.steps[index]!;
  return step.screenshot && !step.screenshotNote ? step.screenshot : undefined;
}

const usesScreenshots = (observation: ObservationType) => observation !== 'a11y_tree';

/** The images upstream captions for a judge type (what to caption before building the input). */
export function upstreamCaptionImages(
  trajectory: Trajectory,
  judgeType: JudgeType,
  observationType: ObservationType,
): string[] {
  if (judgeType === 'aer' || judgeType === 'all_step_aer') {
    const final = upstreamFinalScreenshot(trajectory).path;
    return final ? [final] : [];
  }
  if (judgeType !== 'captioned_default' || !usesScreenshots(observationType)) return [];
  return trajectory.steps.flatMap((_, index) => stepScreenshot(trajectory, index) ?? []);
}

/** Builds the judge input exactly as upstream's judge/methods/*.py do (see the interface's notes). */
export async function buildUpstreamJudgeInput(
  options: UpstreamJudgeInputOptions,
): Promise<JudgePrompt> {
  const { texts, trajectory, instruction } = options;
  const system = texts.systemPrompts[options.promptVersion];
  const logSteps = trajectory.betterLog.steps;
  if (options.judgeType === 'aer' || options.judgeType === 'all_step_aer') {
    const final = upstreamFinalScreenshot(trajectory);
    let cap: string;
    if (final.path) cap = await options.caption(final.path);
    else if (options.judgeType === 'aer') cap = texts.captioner.missingImage.text;
    else
      throw unjudgeable(
        join(trajectory.dir, final.name),
        "the final screenshot is missing: upstream's all_step_aer judge fails on this run",
      );
    const templates = options.judgeType === 'aer' ? texts.aer : texts.allStepAer;
    const lastActions = logSteps
      .map((step, index) =>
        templates.step.formatNamed({
          step_number: index,
          response: step.response,
          ...(options.judgeType === 'all_step_aer' && { cap }),
        }),
      )
      .join('');
    // aer.py: user_prompt_template.strip().format(...); the system prompt .strip()ped.
    const user = templates.user
      .strip()
      .formatNamed({ instruction, last_actions: lastActions, cap });
    return { system: system.strip().text, messages: [{ role: 'user', content: user }] };
  }
  const observation: ObservationType =
    options.judgeType === 'a11y_tree' ? 'a11y_tree' : options.observationType;
  const withCaption = options.judgeType === 'captioned_default';
  const plain = texts.plain;
  const messages: JudgeMessage[] = [];
  for (const [index, step] of logSteps.entries()) {
    const a11y = step.a11y_tree ?? null;
    const action = step.response;
    if (!usesScreenshots(observation)) {
      messages.push({
        role: 'user',
        content: [
          { type: 'text', text: plain.a11y.intro.format(index, a11y) },
          { type: 'text', text: plain.a11y.action.format(index, action) },
        ],
      });
      continue;
    }
    const image = stepScreenshot(trajectory, index);
    if (!image) continue;
    const group = observation === 'screenshot_a11y_tree' ? plain.screenshotA11y : plain.screenshot;
    const intro =
      observation === 'screenshot_a11y_tree'
        ? plain.screenshotA11y.intro.format(index, a11y)
        : plain.screenshot.intro.fill({ observation_type: observation, _step: index });
    const content: JudgeContentPart[] = [
      { type: 'text', text: intro },
      { type: 'image', path: image, detail: 'high' },
    ];
    if (withCaption)
      content.push({
        type: 'text',
        text: group.caption.format(index, await options.caption(image)),
      });
    content.push({ type: 'text', text: group.action.format(index, action) });
    messages.push({ role: 'user', content });
  }
  const task = plain.task.format(instruction);
  return { system: [{ type: 'text', text: system.text + task }], messages };
}
