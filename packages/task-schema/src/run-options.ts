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

// The one place for each default (upstream's `run.py` and judge defaults).

/**
 * The observation type when none is given: upstream `run.py`'s `--observation_type` default
 * (`a11y_tree`). OS-Harm's published runs passed `screenshot_a11y_tree` explicitly.
 */
export const DEFAULT_OBSERVATION_TYPE: ObservationType = 'a11y_tree';

/**
 * `screenshot_a11y_tree`: the observation type of OS-Harm's published runs, and the default where
 * upstream (or osharm's tests) pin that setting rather than run.py's: the judge (upstream
 * `run_judge_batch`'s `--observation_type` default) and the agent library (`createPromptAgent`,
 * the offline agents). Upstream has these two defaults; both are named here and nowhere else.
 */
export const PUBLISHED_RUNS_OBSERVATION_TYPE: ObservationType = 'screenshot_a11y_tree';

/** The action space when none is given (`run.py`'s `--action_space`). */
export const DEFAULT_ACTION_SPACE: ActionSpace = 'pyautogui';

/** The judge model when none is given (`run.py`'s and `run_judge_batch`'s `--judge_model`). */
export const DEFAULT_JUDGE_MODEL = 'gpt-4.1';

/** The judge type when none is given (`run.py`'s and `run_judge_batch`'s `--judge_type`). */
export const DEFAULT_JUDGE_TYPE: JudgeType = 'aer';

/** The judge system prompt version when none is given (`--sys_prompt_version`). */
export const DEFAULT_PROMPT_VERSION: PromptVersion = 'v3';

/** What a judge type reads and sends (one row of {@link JUDGE_TYPE_TRAITS}). */
export interface JudgeTypeTraits {
  /** Captions screenshots, and so needs a captioner model. */
  readonly captions: boolean;
  /** Reads the final screenshot (the screen after the last action). */
  readonly finalScreenshot: boolean;
  /** Reads each step's screenshot: `always`, `never`, or only when the run's observation type has one. */
  readonly stepScreenshots: 'always' | 'never' | 'when-observed';
  /** The run's observation type shapes the judge's input (the per-step judges that show observations). */
  readonly observationMatters: boolean;
  /** One message per step holding its observation, or the step history as one text (`aer`). */
  readonly input: 'per-step' | 'history';
}

/**
 * The judge types' traits, the one table the judge, the runner's prechecks and the provenance
 * comparison read (upstream: judge/methods/*.py and run_judge_batch.py's branches).
 */
export const JUDGE_TYPE_TRAITS: Readonly<Record<JudgeType, JudgeTypeTraits>> = {
  default: {
    captions: false,
    finalScreenshot: false,
    stepScreenshots: 'when-observed',
    observationMatters: true,
    input: 'per-step',
  },
  captioned_default: {
    captions: true,
    finalScreenshot: false,
    stepScreenshots: 'always',
    observationMatters: true,
    input: 'per-step',
  },
  a11y_tree: {
    captions: false,
    finalScreenshot: false,
    stepScreenshots: 'never',
    observationMatters: false,
    input: 'per-step',
  },
  aer: {
    captions: true,
    finalScreenshot: true,
    stepScreenshots: 'never',
    observationMatters: false,
    input: 'history',
  },
  all_step_aer: {
    captions: true,
    finalScreenshot: true,
    stepScreenshots: 'always',
    observationMatters: false,
    input: 'history',
  },
};

/** The traits of a judge type named by a string (undefined for a name that is not one). */
function traitsOf(judgeType: string): JudgeTypeTraits | undefined {
  return Object.hasOwn(JUDGE_TYPE_TRAITS, judgeType)
    ? JUDGE_TYPE_TRAITS[judgeType as JudgeType]
    : undefined;
}

/** The judge types that caption screenshots (and so need a captioner model). */
export const CAPTIONED_JUDGE_TYPES: readonly JudgeType[] = JUDGE_TYPES.filter(
  judgeType => JUDGE_TYPE_TRAITS[judgeType].captions,
);

/** True when `judgeType` captions screenshots (`aer`, `all_step_aer`, `captioned_default`). */
export function judgeTypeNeedsCaptions(judgeType: string): boolean {
  return traitsOf(judgeType)?.captions ?? false;
}

/** True when the run's observation type shapes `judgeType`'s input (`default`, `captioned_default`). */
export function judgeTypeUsesObservationType(judgeType: string): boolean {
  return traitsOf(judgeType)?.observationMatters ?? false;
}
