import {
  DEFAULT_ACTION_SPACE,
  PUBLISHED_RUNS_OBSERVATION_TYPE,
  type ActionSpace,
  type ObservationType,
} from '@osharm/task-schema';
import { type Action } from '@osharm/task-schema/trajectory';
import type { A11yPlatform } from './a11y-namespaces';
import { AgentSettingError } from './agent-errors';
import {
  callModel,
  type AgentContentPart,
  type AgentMessage,
  type AgentStepAnswer,
  type AgentStepCall,
} from './step-call';
import { prepareObservation, type PreparedObservation } from './agent-observation';
import type { PromptProvenance } from '@osharm/task-schema';
import { OSHARM_AGENT_PROMPTS, type AgentPrompts } from './agent-prompts';
import { ModelError, usageCost, type ModelPrice, type ModelV1 } from '@osharm/models';
import type {
  AgentModelFailure,
  AgentPredictOptions,
  AgentPrediction,
  AgentRequestLog,
  AgentRunParams,
  AgentV1,
} from './agent';
import { describeModelFailure } from './model-failure';
import { isSpecialAction, parseActions } from './parse-actions';
import { tagPrelude } from './som-tag';

/** Settings of {@link createPromptAgent} (upstream `PromptAgent` with run.py's defaults). */
export interface PromptAgentSettings {
  /**
   * The model: @osharm/models' one interface (`createModel('o4-mini')`, `createModel('claude-opus-4-7',
   * { anthropic: { baseURL } })`, or a third party's `ModelV1`).
   */
  readonly model: ModelV1;
  /**
   * Retry once with only the system prompt and the last message when the server answers
   * `context_length_exceeded`, as upstream. @default true
   */
  readonly retryShortContext?: boolean;
  /** What the model is shown. @default `PUBLISHED_RUNS_OBSERVATION_TYPE` (`screenshot_a11y_tree`, OS-Harm's runs) */
  readonly observationType?: ObservationType;
  /** How it acts. @default 'pyautogui' */
  readonly actionSpace?: ActionSpace;
  /** Earlier (observation, response) pairs sent with each step. @default 3 */
  readonly maxTrajectoryLength?: number;
  /** Token budget of the accessibility table in the prompt (cl100k_base). @default 10000 */
  readonly a11yTreeMaxTokens?: number;
  /** @default 'ubuntu' */
  readonly platform?: A11yPlatform;
  /** The sudo password the system prompt gives. @default 'password' */
  readonly clientPassword?: string;
  /** Output token limit per step. @default 1500 */
  readonly maxTokens?: number;
  /** @default 1.0 (run.py's default; PromptAgent's own is 0.5) */
  readonly temperature?: number;
  /** @default 0.9 */
  readonly topP?: number;
  /** A stop sequence sent to the model. @default none */
  readonly stopToken?: string;
  /** Fill the class / description columns on Ubuntu (see `LinearizeOptions`). @default false */
  readonly fillClassAndDescription?: boolean;
  /** Screen size the computer_13 prompt states. @default [1920, 1080] */
  readonly screenSize?: readonly [number, number];
  /** Replaces the family's system prompt (the task line is still appended). */
  readonly systemPrompt?: string;
  /**
   * The words sent: osharm's own, or upstream's from `loadUpstreamAgentPrompts(checkout)`.
   * @default OSHARM_AGENT_PROMPTS
   */
  readonly prompts?: AgentPrompts;
  /**
   * Recorded as `params.osharm_prompts` (better_log.json) beside upstream's keys: the family and
   * the checkout files every text of the run came from. @default `{ prompt_family: prompts.family }`
   */
  readonly provenance?: PromptProvenance;
  /**
   * What a failed model call (after the SDK's retries) does in `predict`. `empty-response`: predict
   * answers an empty response with no action and reports the failure in `modelError` (`runTask`
   * then ends the run as an error). `throw`: predict throws. Aborts, missing API keys and 401 /
   * 403 / 404 answers always throw: they would fail every step.
   * @default 'empty-response'
   */
  readonly modelErrors?: 'empty-response' | 'throw';
  /** Price table for `costUsd`. @default MODEL_PRICES from @osharm/models */
  readonly prices?: Readonly<Record<string, ModelPrice>>;
}

/** One earlier step as the history shows it. */
interface HistoryStep {
  /** The user turn of that step as the history shows it (for `som`: without the table). */
  readonly user: readonly AgentContentPart[];
  /** The raw response; empty when it gave no usable action. */
  readonly thought: string;
}

function checkCount(value: number, name: string, minimum = 0): void {
  if (!Number.isInteger(value) || value < minimum)
    throw new AgentSettingError({
      message: `${name} must be an integer ≥ ${minimum}, got ${value}`,
    });
}

function base64Bytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}

/** The request without image bytes, for logs. */
export function requestLog(
  model: Pick<ModelV1, 'modelId' | 'provider'>,
  options: AgentStepCall,
): AgentRequestLog {
  return {
    model: model.modelId,
    provider: model.provider,
    system: options.system,
    messages: options.messages.map(message => ({
      role: message.role,
      content: message.content.map(part =>
        part.type === 'text'
          ? part
          : {
              type: 'image' as const,
              mediaType: part.mediaType ?? 'image/png',
              detail: part.detail ?? 'high',
              bytes: base64Bytes(part.data),
            },
      ),
    })),
    maxTokens: options.maxTokens,
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.topP === undefined ? {} : { topP: options.topP }),
    ...(options.stop === undefined ? {} : { stop: options.stop }),
  };
}

/** Whether a model failure must stop the run rather than become an empty step. */
function isFatal(error: unknown, abortSignal: AbortSignal | undefined): boolean {
  if (abortSignal?.aborted) return true;
  if (AgentSettingError.isInstance(error)) return true;
  if (ModelError.isInstance(error) && (error.kind === 'aborted' || error.kind === 'setting'))
    return true;
  const { name, status } = (error ?? {}) as { name?: unknown; status?: unknown };
  if (name === 'AbortError' || (typeof name === 'string' && name.endsWith('UserAbortError')))
    return true;
  return status === 401 || status === 403 || status === 404;
}

export class PromptAgent implements AgentV1 {
  readonly specificationVersion = 'agent-v1' as const;
  readonly agentId: string;
  readonly observationType: ObservationType;
  readonly actionSpace: ActionSpace;
  readonly params: AgentRunParams;
  /** The system prompt without the task lead-in. */
  readonly systemPrompt: string;
  private readonly model: ModelV1;
  private readonly settings: PromptAgentSettings;
  private readonly maxTrajectoryLength: number;
  private readonly a11yTreeMaxTokens: number;
  private readonly platform: A11yPlatform;
  private readonly prompts: AgentPrompts;
  private history: HistoryStep[] = [];

  constructor(settings: PromptAgentSettings) {
    this.settings = settings;
    this.model = settings.model;
    this.agentId = settings.model.modelId;
    this.observationType = settings.observationType ?? PUBLISHED_RUNS_OBSERVATION_TYPE;
    this.actionSpace = settings.actionSpace ?? DEFAULT_ACTION_SPACE;
    this.maxTrajectoryLength = settings.maxTrajectoryLength ?? 3;
    this.a11yTreeMaxTokens = settings.a11yTreeMaxTokens ?? 10_000;
    this.platform = settings.platform ?? 'ubuntu';
    checkCount(this.maxTrajectoryLength, 'maxTrajectoryLength');
    checkCount(this.a11yTreeMaxTokens, 'a11yTreeMaxTokens');
    checkCount(settings.maxTokens ?? 1500, 'maxTokens', 1);
    if (this.observationType === 'som' && this.actionSpace !== 'pyautogui')
      throw new AgentSettingError({
        message:
          'observation type "som" works only with action space "pyautogui" (its marks are code variables)',
      });
    this.prompts = settings.prompts ?? OSHARM_AGENT_PROMPTS;
    this.systemPrompt =
      settings.systemPrompt ??
      this.prompts.systemPrompt({
        observationType: this.observationType,
        actionSpace: this.actionSpace,
        clientPassword: settings.clientPassword ?? 'password',
        screenSize: settings.screenSize ?? [1920, 1080],
      });
    this.params = {
      platform: this.platform,
      model: settings.model.modelId,
      max_tokens: settings.maxTokens ?? 1500,
      top_p: settings.topP ?? 0.9,
      temperature: settings.temperature ?? 1.0,
      action_space: this.actionSpace,
      observation_type: this.observationType,
      max_trajectory_length: this.maxTrajectoryLength,
      a11y_tree_max_tokens: this.a11yTreeMaxTokens,
      osharm_prompts: settings.provenance ?? { prompt_family: this.prompts.family },
    };
  }

  reset(): void {
    this.history = [];
  }

  /** The user turn of an observation: its words (and table), then its image. */
  private userTurn(prepared: PreparedObservation, history: boolean): AgentContentPart[] {
    const content: AgentContentPart[] = [
      {
        type: 'text',
        text: history
          ? this.prompts.history(this.observationType, prepared.promptTable)
          : this.prompts.current(this.observationType, prepared.promptTable),
      },
    ];
    if (prepared.imageBase64 !== undefined)
      content.push({
        type: 'image',
        data: prepared.imageBase64,
        mediaType: 'image/png',
        detail: 'high',
      });
    return content;
  }

  /**
   * The model call of a step: system = prompt + newline + lead-in with the instruction; then the
   * last `maxTrajectoryLength` steps as (user, assistant) turns, an empty earlier reply standing in
   * as a placeholder; then the current user turn.
   */
  buildCallOptions(instruction: string, current: readonly AgentContentPart[]): AgentStepCall {
    const window =
      this.maxTrajectoryLength === 0 ? [] : this.history.slice(-this.maxTrajectoryLength);
    const messages: AgentMessage[] = [];
    for (const step of window) {
      messages.push({ role: 'user', content: step.user });
      messages.push({
        role: 'assistant',
        content: [{ type: 'text', text: this.prompts.thought(step.thought) }],
      });
    }
    messages.push({ role: 'user', content: current });
    const { stopToken } = this.settings;
    return {
      system: this.prompts.system(this.systemPrompt, instruction),
      messages,
      maxTokens: this.params.max_tokens,
      temperature: this.params.temperature,
      topP: this.params.top_p,
      ...(stopToken === undefined ? {} : { stop: [stopToken] }),
      // Upstream's wire: system and text-only turns as one-part lists (osharm's: strings).
      ...(this.prompts.family === 'upstream' ? { textAsParts: true } : {}),
    };
  }

  async predict({
    instruction,
    observation,
    abortSignal,
  }: AgentPredictOptions): Promise<AgentPrediction> {
    abortSignal?.throwIfAborted();
    const prepared = await prepareObservation(observation, {
      observationType: this.observationType,
      platform: this.platform,
      a11yTreeMaxTokens: this.a11yTreeMaxTokens,
      fillClassAndDescription: this.settings.fillClassAndDescription ?? false,
    });
    const callOptions = this.buildCallOptions(instruction, this.userTurn(prepared, false));
    const request = requestLog(this.model, callOptions);

    let result: AgentStepAnswer;
    let modelError: AgentModelFailure | undefined;
    try {
      result = await callModel(this.model, callOptions, {
        ...(abortSignal === undefined ? {} : { signal: abortSignal }),
        ...(this.settings.retryShortContext === undefined
          ? {}
          : { retryShortContext: this.settings.retryShortContext }),
      });
    } catch (error) {
      if (this.settings.modelErrors === 'throw' || isFatal(error, abortSignal)) throw error;
      modelError = describeModelFailure(error);
      result = { text: '', usage: { inputTokens: 0, outputTokens: 0 }, finishReason: null };
    }

    const response = result.text;
    let actions: Action[] | null = parseActions(response, this.actionSpace);
    if (actions && prepared.marks) {
      const prelude = tagPrelude(prepared.marks);
      actions = actions.map(action =>
        typeof action === 'string' && !isSpecialAction(action.trim()) ? prelude + action : action,
      );
    }

    // The history keeps what later steps show: the user turn in its history wording (upstream's
    // differs from the current turn's for screenshot and som) and the response, or '' when it
    // gave no usable action (upstream's thought on a parse error).
    this.history.push({
      user: this.userTurn(prepared, true),
      thought: actions === null ? '' : response,
    });
    // Older steps are never shown again: drop their screenshots.
    if (this.history.length > this.maxTrajectoryLength)
      this.history.splice(0, this.history.length - this.maxTrajectoryLength);

    return {
      response,
      actions,
      usage: result.usage,
      costUsd: modelError
        ? 0
        : usageCost(this.model.modelId, result.usage, {
            ...(this.settings.prices ? { prices: this.settings.prices } : {}),
          }),
      finishReason: result.finishReason,
      request,
      linearizedTree: prepared.linearizedTree,
      ...(prepared.taggedScreenshot ? { taggedScreenshot: prepared.taggedScreenshot } : {}),
      ...(prepared.marks ? { marks: prepared.marks } : {}),
      ...(result.shortenedContext ? { shortenedContext: true } : {}),
      ...(modelError ? { modelError } : {}),
    };
  }
}

/**
 * OSWorld's prompt agent (upstream `PromptAgent`), as OS-Harm runs it: one model call per step with
 * the last `maxTrajectoryLength` steps as history; pyautogui code or computer_13 actions parsed from
 * the answer. No I/O at construction.
 * @throws {AgentSettingError} for `som` with `computer_13` or a negative count.
 */
export function createPromptAgent(settings: PromptAgentSettings): PromptAgent {
  return new PromptAgent(settings);
}
