import type { PromptProvenance, PromptVersion } from '@osharm/task-schema';
import type { UpstreamCheckout } from '@osharm/upstream';
import {
  openUpstream,
  UpstreamError,
  upstreamProvenance,
  type PyValue,
  type UpstreamFile,
  type UpstreamText,
} from '@osharm/upstream';

const PROMPTS = 'judge/methods/prompts.py';
const PLAIN = 'judge/methods/plain_judge.py';
const AER = 'judge/methods/aer.py';
const ALL_STEP_AER = 'judge/methods/all_step_aer.py';

/** The per-step judges' texts (plain_judge.py), each a `str.format` template. */
export interface UpstreamPlainTexts {
  /** Appended to the system prompt, formatted with the instruction. */
  readonly task: UpstreamText;
  readonly screenshotA11y: { intro: UpstreamText; caption: UpstreamText; action: UpstreamText };
  /** `intro` is an f-string over upstream's names `observation_type` and `_step`. */
  readonly screenshot: { intro: UpstreamText; caption: UpstreamText; action: UpstreamText };
  readonly a11y: { intro: UpstreamText; action: UpstreamText };
}

/** The captioner of aer.py: its prompt and the defaults of `get_caption`. */
export interface UpstreamCaptionerTexts {
  readonly prompt: UpstreamText;
  readonly model: string;
  readonly temperature: number;
  readonly maxCompletionTokens: number;
  readonly seed: number;
  /** What aer.py's `get_caption` returns when the final screenshot is missing. */
  readonly missingImage: UpstreamText;
}

/**
 * Everything the judge reads from an upstream checkout, read (and checked) at once so a checkout
 * lacking a symbol stops a command before any model call.
 */
export interface UpstreamJudgeTexts {
  readonly checkout: UpstreamCheckout;
  readonly systemPrompts: Readonly<Record<PromptVersion, UpstreamText>>;
  readonly plain: UpstreamPlainTexts;
  readonly aer: { readonly step: UpstreamText; readonly user: UpstreamText };
  readonly allStepAer: { readonly step: UpstreamText; readonly user: UpstreamText };
  readonly captioner: UpstreamCaptionerTexts;
  /** `prompt_family: "upstream"` and every source above. */
  readonly provenance: PromptProvenance;
}

/** What a judging option may hold: a checkout's path, an opened checkout, or texts already read. */
export type UpstreamOption = string | UpstreamCheckout | UpstreamJudgeTexts;

/** Reads the judge's texts from a checkout. @throws {UpstreamError} naming file and symbol. */
export function readUpstreamJudgeTexts(option: UpstreamOption): UpstreamJudgeTexts {
  if (typeof option === 'object' && 'systemPrompts' in option) return option;
  const checkout = typeof option === 'string' ? openUpstream(option) : option;
  const prompts = checkout.file(PROMPTS);
  const systemPrompts = {
    v1: prompts.constant('SYS_PROMPT_V1'),
    v2: prompts.constant('SYS_PROMPT_V2'),
    v3: prompts.constant('SYS_PROMPT_V3'),
  };
  const plain = plainTexts(checkout.file(PLAIN), checkout.root);
  const aerFile = checkout.file(AER);
  const allStepFile = checkout.file(ALL_STEP_AER);
  const aer = {
    step: aerFile.constant('STEP_TEMPLATE'),
    user: aerFile.constant('user_prompt_template'),
  };
  const allStepAer = {
    step: allStepFile.constant('STEP_TEMPLATE'),
    user: allStepFile.constant('user_prompt_template'),
  };
  const captioner = captionerTexts(aerFile, checkout.root);
  const all = [
    ...Object.values(systemPrompts),
    plain.task,
    ...Object.values(plain.screenshotA11y),
    ...Object.values(plain.screenshot),
    ...Object.values(plain.a11y),
    aer.step,
    aer.user,
    allStepAer.step,
    allStepAer.user,
    captioner.prompt,
    captioner.missingImage,
    { source: aerFile.source('get_caption') },
  ];
  return {
    checkout,
    systemPrompts,
    plain,
    aer,
    allStepAer,
    captioner,
    provenance: upstreamProvenance(all),
  };
}

function shapeError(file: UpstreamFile, symbol: string, detail: string, root: string) {
  return new UpstreamError({ reason: 'unsupported', root, file: file.path, symbol, detail });
}

/**
 * plain_judge.py builds each step's parts from `"text": …` literals: for screenshot + a11y tree
 * (intro, caption, action), for screenshot / SoM (intro, caption, action) and for the a11y tree
 * (intro, action) — 8 in that order; and the system prompt's task line is the `.format`ted
 * literal appended to each version (three equal ones).
 */
function plainTexts(file: UpstreamFile, root: string): UpstreamPlainTexts {
  const fn = 'create_chat_messages_from_trajectory';
  const strings = file.strings(fn);
  const parts = strings.filter(found => found.dictKey === 'text').map(found => found.text);
  const task = strings.filter(found => found.dictKey === undefined && found.method === 'format');
  if (parts.length !== 8 || task.length !== 3 || new Set(task.map(t => t.text.text)).size !== 1)
    throw shapeError(
      file,
      fn,
      `expected 8 "text" literals and 3 equal formatted task lines, found ${parts.length} and ${task.length}`,
      root,
    );
  const [
    sa11yIntro,
    sa11yCaption,
    sa11yAction,
    shotIntro,
    shotCaption,
    shotAction,
    a11yIntro,
    a11yAction,
  ] = parts as [
    UpstreamText,
    UpstreamText,
    UpstreamText,
    UpstreamText,
    UpstreamText,
    UpstreamText,
    UpstreamText,
    UpstreamText,
  ];
  return {
    task: task[0]!.text,
    screenshotA11y: { intro: sa11yIntro, caption: sa11yCaption, action: sa11yAction },
    screenshot: { intro: shotIntro, caption: shotCaption, action: shotAction },
    a11y: { intro: a11yIntro, action: a11yAction },
  };
}

function captionerTexts(file: UpstreamFile, root: string): UpstreamCaptionerTexts {
  const defaults = file.defaults('get_caption');
  const number = (name: string): number => {
    const value: PyValue | undefined = defaults[name];
    if (typeof value !== 'number')
      throw shapeError(file, `get_caption(${name})`, 'no int default', root);
    return value;
  };
  const model = defaults.captioner_model;
  if (typeof model !== 'string')
    throw shapeError(file, 'get_caption(captioner_model)', 'no str default', root);
  const returned = file.strings('get_caption').filter(found => found.statement === 'return');
  if (returned.length !== 1)
    throw shapeError(
      file,
      'get_caption',
      'expected one returned string literal (the missing-image caption)',
      root,
    );
  return {
    prompt: file.local('format_msg_for_captioning', 'prompt'),
    model,
    temperature: number('temperature'),
    maxCompletionTokens: number('max_completion_tokens'),
    seed: number('seed'),
    missingImage: returned[0]!.text,
  };
}
