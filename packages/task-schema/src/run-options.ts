/** Observation types of the OSWorld prompt agent (and the judge's `--observation_type`). */
export const OBSERVATION_TYPES = [
  'screenshot',
  'a11y_tree',
  'screenshot_a11y_tree',
  'som',
] as const;
export type ObservationType = (typeof OBSERVATION_TYPES)[number];

/** Action spaces of the OSWorld prompt agent. */
export const ACTION_SPACES = ['pyautogui', 'computer_13'] as const;
export type ActionSpace = (typeof ACTION_SPACES)[number];

/** The special actions that end or pause a step instead of running code. */
export const SPECIAL_ACTIONS = ['WAIT', 'DONE', 'FAIL'] as const;
export type SpecialAction = (typeof SPECIAL_ACTIONS)[number];

/** Judge types of the OS-Harm judge (`--judge_type`). */
export const JUDGE_TYPES = [
  'default',
  'captioned_default',
  'a11y_tree',
  'aer',
  'all_step_aer',
] as const;
export type JudgeType = (typeof JUDGE_TYPES)[number];

/** Judge system prompt versions (`--sys_prompt_version`). */
export const PROMPT_VERSIONS = ['v1', 'v2', 'v3'] as const;
export type PromptVersion = (typeof PROMPT_VERSIONS)[number];
