import type { ActionSpace, ObservationType, UpstreamSource } from '@osharm/task-schema';
import {
  pyStrip,
  STRING_LITERAL as STR,
  UpstreamError,
  type CodePattern,
  type UpstreamCheckout,
  type UpstreamText,
} from '@osharm/upstream';
import { AgentSettingError } from './agent-errors';
import type { AgentPrompts } from './agent-prompts';

// Upstream's PromptAgent texts, read from a checkout at run time. The system prompts are module
// constants of mm_agents/prompts.py; the task line, the observation texts and the placeholder of
// an empty earlier reply are string literals inside `PromptAgent.predict` (mm_agents/agent.py),
// found by the code around them (which variable is formatted into them, under which
// observation-type branch), never by their words.

/** Upstream's system prompt constant per observation type × action space (PromptAgent.__init__). */
export const UPSTREAM_SYSTEM_PROMPTS: Readonly<
  Record<ObservationType, Partial<Record<ActionSpace, string>>>
> = {
  screenshot: {
    computer_13: 'SYS_PROMPT_IN_SCREENSHOT_OUT_ACTION',
    pyautogui: 'SYS_PROMPT_IN_SCREENSHOT_OUT_CODE',
  },
  a11y_tree: {
    computer_13: 'SYS_PROMPT_IN_A11Y_OUT_ACTION',
    pyautogui: 'SYS_PROMPT_IN_A11Y_OUT_CODE',
  },
  screenshot_a11y_tree: {
    computer_13: 'SYS_PROMPT_IN_BOTH_OUT_ACTION',
    pyautogui: 'SYS_PROMPT_IN_BOTH_OUT_CODE',
  },
  som: { pyautogui: 'SYS_PROMPT_IN_SOM_OUT_TAG' },
};

const PROMPTS_FILE = 'mm_agents/prompts.py';
const AGENT_FILE = 'mm_agents/agent.py';
const PREDICT = 'PromptAgent.predict';

/** Upstream's agent texts and the checkout sources they came from. */
export interface UpstreamAgentPrompts {
  readonly prompts: AgentPrompts;
  readonly sources: readonly UpstreamSource[];
}

const formatOf = (name: string) => ['.', 'format', '(', name, ')'];

/**
 * Reads upstream's PromptAgent texts from a checkout: the seven system prompts of
 * mm_agents/prompts.py and the literals of `PromptAgent.predict` in mm_agents/agent.py (the task
 * line, the current and history observation texts, the placeholder of an empty reply).
 * @throws {UpstreamError} naming file and symbol when one is missing or not the shape expected
 */
export function loadUpstreamAgentPrompts(checkout: UpstreamCheckout): UpstreamAgentPrompts {
  const promptsFile = checkout.file(PROMPTS_FILE);
  const systemPrompts = new Map<string, UpstreamText>();
  for (const bySpace of Object.values(UPSTREAM_SYSTEM_PROMPTS))
    for (const symbol of Object.values(bySpace))
      systemPrompts.set(symbol, promptsFile.constant(symbol));

  const agent = checkout.file(AGENT_FILE);
  const once = (what: string, pattern: CodePattern, under?: string): UpstreamText[] => {
    const found = agent.find(pattern, { within: PREDICT, ...(under ? { under } : {}) });
    if (found.length !== 1)
      throw new UpstreamError({
        reason: 'unsupported',
        root: checkout.root,
        file: AGENT_FILE,
        symbol: PREDICT,
        detail: `${what}: found ${found.length} times, expected once`,
      });
    return found[0]!;
  };
  const plain = (text: UpstreamText) => text.text; // throws for an f-string, naming the symbol
  const [taskLine] = once('the task line', [
    'system_message',
    '=',
    'self',
    '.',
    'system_message',
    '+',
    STR,
    ...formatOf('instruction'),
  ]);
  const [currentScreenshot, currentBoth] = once('the current screenshot texts', [
    'base_text',
    '=',
    STR,
    'if',
    'self',
    '.',
    'observation_type',
    '==',
    '"screenshot"',
    'else',
    STR,
    ...formatOf('linearized_accessibility_tree'),
  ]);
  const current = (type: ObservationType) =>
    once(
      `the current ${type} text`,
      ['base_text', '=', STR, ...formatOf('linearized_accessibility_tree')],
      type,
    )[0]!;
  const history = (type: ObservationType) =>
    once(
      `the ${type} history text`,
      ['"text"', ':', STR, ...formatOf('_linearized_accessibility_tree')],
      type,
    )[0]!;
  const [historyScreenshot] = once(
    'the screenshot / som history text',
    ['"text"', ':', STR],
    'som',
  );
  const [noAction] = once('the placeholder of an empty reply', [
    'previous_thought',
    '.',
    'strip',
    '(',
    ')',
    'if',
    'len',
    '(',
    'previous_thought',
    ')',
    '>',
    '0',
    'else',
    STR,
  ]);
  const texts = {
    taskLine: plain(taskLine!),
    currentScreenshot: plain(currentScreenshot!),
    currentBoth: currentBoth!,
    currentA11y: current('a11y_tree'),
    currentSom: current('som'),
    historyBoth: history('screenshot_a11y_tree'),
    historyA11y: history('a11y_tree'),
    historyScreenshot: historyScreenshot!,
    noAction: plain(noAction!),
  };
  // Python's str(None) when an observation has no table, as upstream formats it.
  const table = (value: string | undefined) => value ?? null;
  // The f-string of an earlier screenshot / som turn reads `self.observation_type`.
  const historyScreenshotText = (type: ObservationType) =>
    texts.historyScreenshot.fill({ 'self.observation_type': type });

  const prompts: AgentPrompts = Object.freeze({
    family: 'upstream' as const,
    systemPrompt({ observationType, actionSpace }) {
      const symbol = UPSTREAM_SYSTEM_PROMPTS[observationType][actionSpace];
      if (symbol === undefined)
        throw new AgentSettingError({
          message: `upstream's PromptAgent has no system prompt for observation type "${observationType}" with action space "${actionSpace}"`,
        });
      return systemPrompts.get(symbol)!.text;
    },
    system: (systemPrompt, instruction) => systemPrompt + taskLine!.format(instruction),
    current(observationType, value) {
      switch (observationType) {
        case 'screenshot':
          return texts.currentScreenshot;
        case 'screenshot_a11y_tree':
          return texts.currentBoth.format(table(value));
        case 'a11y_tree':
          return texts.currentA11y.format(table(value));
        case 'som':
          return texts.currentSom.format(table(value));
      }
    },
    history(observationType, value) {
      switch (observationType) {
        case 'screenshot':
        case 'som':
          return historyScreenshotText(observationType);
        case 'screenshot_a11y_tree':
          return texts.historyBoth.format(table(value));
        case 'a11y_tree':
          return texts.historyA11y.format(table(value));
      }
    },
    thought: response => (response.length > 0 ? pyStrip(response) : texts.noAction),
  } satisfies AgentPrompts);
  // Fail at load, not at the first step: every text must fill.
  for (const type of ['screenshot', 'som'] as const) historyScreenshotText(type);
  return {
    prompts,
    sources: [...systemPrompts.values()].map(text => text.source).concat(taskLine!.source),
  };
}
