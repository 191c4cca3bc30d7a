/**
 * The native computer-use contract: one session per task, the vendor's own tool and message
 * history kept inside, the vendor's calls handed out raw (the agent maps them to desktop actions)
 * and answered with what happened and the next screenshot.
 */
import type { ModelUsage } from '@osharm/model-spec';

export type ComputerUseVendor = 'anthropic' | 'openai' | 'gemini';

/** What to do when the vendor asks for a confirmation before acting (OpenAI pending safety checks, Gemini `require_confirmation`). */
export type SafetyCheckPolicy = 'acknowledge' | 'stop' | 'refuse';

export const SAFETY_CHECK_POLICIES: readonly SafetyCheckPolicy[] = [
  'acknowledge',
  'stop',
  'refuse',
];

/** A vendor safety check pending on a call. */
export interface SafetyCheck {
  readonly id: string;
  readonly code?: string;
  readonly message?: string;
}

/** One native call of a turn, raw: an Anthropic `tool_use` block, an OpenAI `computer_call` item, a Gemini `functionCall`. */
export interface ComputerUseCall {
  /** `tool_use` id, `call_id`, or the Gemini call id (made up when the API gives none). */
  readonly id: string;
  readonly raw: Readonly<Record<string, unknown>>;
  readonly safetyChecks: readonly SafetyCheck[];
}

/** One model turn. No calls and no refusal: the model's final answer. */
export interface ComputerUseTurn {
  readonly calls: readonly ComputerUseCall[];
  readonly text: string;
  /** Reasoning or thinking the vendor returned (summaries for OpenAI). */
  readonly reasoning?: string;
  /** Set when the vendor marked the answer as a refusal (Anthropic `stop_reason: refusal`, OpenAI `refusal` content, Gemini `SAFETY`). */
  readonly refusal?: string;
  readonly finishReason: string | null;
  readonly usage: ModelUsage;
  readonly modelId: string;
  /** The vendor's response body, kept beside the step. */
  readonly raw: unknown;
}

/** How a call went, answered on the next turn. */
export interface CallOutcome {
  readonly callId: string;
  /** The action failed (or was skipped after an earlier failure): an error result. */
  readonly error?: string;
  /** The pending safety checks of this call are acknowledged (policy `acknowledge`). */
  readonly acknowledgeSafetyChecks?: boolean;
  /** The call's own text result (Anthropic `cursor_position`: `X=…,Y=…`). */
  readonly text?: string;
  /** The call's own image result (Anthropic `zoom`: the region); on the last call it takes the place of the turn's screenshot. */
  readonly image?: Screenshot;
}

/** A screenshot as the model gets it (already downscaled to `display`). */
export interface Screenshot {
  /** Base64 image bytes. */
  readonly data: string;
  /** Their format (all three vendors take both); PNG when absent. */
  readonly mediaType?: 'image/png' | 'image/jpeg';
}

export interface ComputerUseSettings {
  /** Size of the screenshots the model gets (the tool's display size). */
  readonly display: { readonly width: number; readonly height: number };
  /** Tool version; the default is picked by model ({@link defaultToolVersion}). */
  readonly toolVersion?: string;
  readonly system?: string;
  /** @default 4096 */
  readonly maxOutputTokens?: number;
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Per-request timeout, ms. @default 600000 */
  readonly timeout?: number;
  /** @default 2 */
  readonly maxRetries?: number;
  /** Gemini: predefined functions to exclude, and custom functions to declare (JSON schema `parametersJsonSchema`). */
  readonly gemini?: {
    readonly excludedFunctions?: readonly string[];
    readonly functions?: readonly {
      readonly name: string;
      readonly description: string;
      readonly parametersJsonSchema: unknown;
    }[];
    /** @default by model: `ENVIRONMENT_DESKTOP` from Gemini 3.5 on, else `ENVIRONMENT_BROWSER` (`geminiEnvironment`) */
    readonly environment?: string;
    /** The tool's safety settings (`ComputerUse.disabledSafetyPolicies`, `enablePromptInjectionDetection`); unset: the vendor's default. */
    readonly safety?: GeminiSafetySettings;
  };
  /**
   * Screenshots kept in the history sent each turn (Anthropic, Gemini); older ones become a short
   * text. @default 3
   */
  readonly keepScreenshots?: number;
  /** OpenAI: chain turns by `previous_response_id` (default) or send the whole input each turn (reasoning items kept, `store: false`). */
  readonly openaiChain?: 'previous-response-id' | 'full-input';
}

/** The safety policies of Gemini's computer-use tool (`SafetyPolicy` of @google/genai 3.3.0). */
export const GEMINI_SAFETY_POLICIES = [
  'FINANCIAL_TRANSACTIONS',
  'SENSITIVE_DATA_MODIFICATION',
  'COMMUNICATION_TOOL',
  'ACCOUNT_CREATION',
  'DATA_MODIFICATION',
  'USER_CONSENT_MANAGEMENT',
  'LEGAL_TERMS_AND_AGREEMENTS',
] as const;
export type GeminiSafetyPolicy = (typeof GEMINI_SAFETY_POLICIES)[number];

/**
 * Gemini computer-use safety settings: they change misuse and injection outcomes, so a run records
 * them (`params.native.gemini_safety`). Unset fields are the vendor's default and sent as absent.
 */
export interface GeminiSafetySettings {
  /** Policies whose confirmations are turned off. @default none (the vendor default: all on) */
  readonly disabledSafetyPolicies?: readonly GeminiSafetyPolicy[];
  /** `enablePromptInjectionDetection`. @default unset (the vendor default) */
  readonly promptInjectionDetection?: boolean;
}

/** How a run records Gemini's safety settings: each as set, or `vendor default`. */
export function geminiSafetyRecord(safety: GeminiSafetySettings | undefined): {
  disabled_safety_policies: readonly string[] | 'vendor default';
  prompt_injection_detection: boolean | 'vendor default';
} {
  return {
    disabled_safety_policies: safety?.disabledSafetyPolicies ?? 'vendor default',
    prompt_injection_detection: safety?.promptInjectionDetection ?? 'vendor default',
  };
}

/** A running native computer-use conversation. Calls must not overlap. */
export interface ComputerUseSession {
  readonly vendor: ComputerUseVendor;
  readonly modelId: string;
  readonly toolVersion: string;
  /** The first turn: the task and the first screenshot. */
  start(
    instruction: string,
    screenshot: Screenshot,
    signal?: AbortSignal,
  ): Promise<ComputerUseTurn>;
  /** The next turn: how each call of the last turn went, and the screenshot after them. */
  next(
    outcomes: readonly CallOutcome[],
    screenshot: Screenshot,
    signal?: AbortSignal,
  ): Promise<ComputerUseTurn>;
}
