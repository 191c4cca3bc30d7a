import type { ActionSpace, ObservationType, PromptProvenance } from '@osharm/task-schema';
import type { Action } from '@osharm/task-schema/trajectory';
import type { TokenUsage } from '@osharm/models';
import type { AgentTextPart } from './step-call';
import type { SomMark } from './som-tag';

/** What the env observed before a step (the parts an agent reads). */
export interface AgentObservation {
  /** PNG bytes of the screen. Needed by `screenshot`, `screenshot_a11y_tree` and `som`. */
  readonly screenshot?: Uint8Array | null;
  /**
   * The accessibility XML of the in-VM server's `/accessibility`. Needed by `a11y_tree`,
   * `screenshot_a11y_tree` and `som`; with any type it is linearized for `better_log.json`.
   */
  readonly accessibilityTree?: string | null;
  /**
   * What this agent's {@link AgentV1.prepareScreenshot} made of `screenshot`, when the environment
   * ran it while observing (a native agent's downscaled copy for its vendor).
   */
  readonly preparedScreenshot?: unknown;
}

/** Options of {@link AgentV1.predict}. */
export interface AgentPredictOptions {
  /** The task instruction (jailbreak-wrapped on jailbreak runs). */
  readonly instruction: string;
  readonly observation: AgentObservation;
  readonly abortSignal?: AbortSignal;
  /**
   * How each action of the previous step went, in order (`runTask` passes it; native agents answer
   * the vendor's calls with it). Absent on the first step.
   */
  readonly previousActions?: readonly AgentActionOutcome[];
  /**
   * The pointer position now, in screen pixels, from the environment (`runTask` passes it when the
   * environment has one; native agents answer `cursor_position` with it).
   */
  readonly cursorPosition?: () => Promise<readonly [number, number]>;
}

/** How one action of a step went in the env. */
export interface AgentActionOutcome {
  readonly status: 'done' | 'failed' | 'skipped';
  /** The guest's error output (failed only). */
  readonly error?: string;
}

/** An image part as logged: its size instead of its bytes. */
export interface AgentLoggedImagePart {
  readonly type: 'image';
  readonly mediaType: string;
  readonly detail: string;
  /** Size of the image in bytes. */
  readonly bytes: number;
}

/** The request a step sent to its model, with images replaced by their sizes (for logs). */
export interface AgentRequestLog {
  readonly model: string;
  readonly provider: string;
  readonly system: string;
  readonly messages: readonly {
    readonly role: 'user' | 'assistant';
    readonly content: readonly (AgentTextPart | AgentLoggedImagePart)[];
  }[];
  readonly maxTokens: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly stop?: readonly string[];
}

/** A failed model call, as recorded (`describeModelFailure`). */
export interface AgentModelFailure {
  /** The error class (`RateLimitError`, `APIConnectionError`, `APIConnectionTimeoutError`, …). */
  readonly name: string;
  readonly message: string;
  /** HTTP status, when the failure was an HTTP answer. */
  readonly status?: number;
  /** The network error code under it (`ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`, …), when any. */
  readonly code?: string;
  /**
   * `connection`: the endpoint could not be reached (refused, DNS, dropped); `timeout`: no answer
   * within the request timeout; `http`: an HTTP error answer; `setting`: no key or a bad setting.
   */
  readonly kind?: 'connection' | 'timeout' | 'http' | 'setting' | 'other';
}

/** What one agent step produced. */
export interface AgentPrediction {
  /** The raw model output (`better_log.json` `response`); empty when the call failed. */
  readonly response: string;
  /**
   * The actions parsed from it (`better_log.json` `actions`): pyautogui code or WAIT / DONE / FAIL
   * strings, or computer_13 action objects. `[]` is a step with no action; `null` a computer_13
   * response that could not be parsed.
   */
  readonly actions: Action[] | null;
  readonly usage: TokenUsage;
  /** Cost of the step's model call in USD, null when the model has no known price. */
  readonly costUsd: number | null;
  /** The model's finish reason, null when there was no answer. */
  readonly finishReason: string | null;
  /** What was sent to the model, without image bytes; null for offline baselines. */
  readonly request: AgentRequestLog | null;
  /**
   * The observation's accessibility table, **not** token-trimmed, with the standard 7-column
   * header (`better_log.json` `a11y_tree`); null when the observation had no tree.
   */
  readonly linearizedTree: string | null;
  /** `som` only: the tagged screenshot (what upstream saves as the step's PNG). */
  readonly taggedScreenshot?: Buffer;
  /** `som` only: the marks `tag_<i>` refer to. */
  readonly marks?: SomMark[];
  /** The answer came from a retry with a shortened context (see the prompt agent's `retryShortContext`). */
  readonly shortenedContext?: boolean;
  /**
   * Set when the model call failed after the SDK's retries and the agent answered with an empty
   * response (`modelErrors: 'empty-response'`). `runTask` ends the run as an error on it: a failed
   * call is never a step.
   */
  readonly modelError?: AgentModelFailure;
  /**
   * Stop running this step's actions at the first one whose execution fails (non-zero return
   * code); the rest are `skipped`. Native agents set it (the vendors' batches stop at a failure).
   */
  readonly stopAtFailedAction?: boolean;
  /** Recorded as the step's `native` key in `better_log.json` (native agents: the vendor's response, calls, usage). */
  readonly native?: Readonly<Record<string, unknown>>;
}

/** The run settings an agent reports for `better_log.json` `params` (upstream's key names). */
export interface AgentRunParams {
  readonly platform: string;
  readonly model: string;
  readonly max_tokens: number;
  readonly top_p: number;
  readonly temperature: number;
  readonly action_space: ActionSpace;
  readonly observation_type: ObservationType;
  readonly max_trajectory_length: number;
  readonly a11y_tree_max_tokens: number;
  /** Native agents: the run configuration (vendor, tool version, display, scaling, safety-check policy and counts). */
  readonly native?: Readonly<Record<string, unknown>>;
  /** Prompt agents: the prompt family and the upstream files its texts came from (osharm's key). */
  readonly osharm_prompts?: PromptProvenance;
}

/**
 * An agent: the solver of a task, one step at a time. `runTask` calls `reset()` before a task and
 * `predict()` once per step, then runs the actions in the env. Calls must not overlap.
 */
export interface AgentV1 {
  readonly specificationVersion: 'agent-v1';
  /** Model id for model agents; `offline-refusing-baseline` / `offline-replay` for the baselines. */
  readonly agentId: string;
  readonly observationType: ObservationType;
  readonly actionSpace: ActionSpace;
  /** Settings for `better_log.json` `params` (the run adds `max_steps`). */
  readonly params: AgentRunParams;
  /** Forgets the history of the previous task. */
  reset(): void;
  /**
   * Work on a screenshot the agent will get in its next observation, which `runTask` asks the
   * environment to run while it still observes the rest (the accessibility walk), so that it costs
   * no time between the observation and the model request. Its result comes back as the
   * observation's `preparedScreenshot`. Optional; native agents downscale for their vendor here.
   */
  prepareScreenshot?(screenshot: Uint8Array): Promise<unknown>;
  /**
   * One step: reads the observation, asks the model, parses its answer.
   * @throws {AgentObservationError} when the observation lacks what the observation type needs.
   * @throws the model's errors when they cannot be a step's outcome (abort, no API key, 401/403/404).
   */
  predict(options: AgentPredictOptions): PromiseLike<AgentPrediction>;
}
