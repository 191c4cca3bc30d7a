/**
 * The model capability table: what each model family accepts, matched on the pinned SDKs' own model
 * lists (`Model` of @anthropic-ai/sdk 1.14.0, `ChatModel` of openai 7.57.0, `Model` of
 * @google/genai 3.3.0). Every request the adapters build reads it: the computer tool, which
 * sampling parameters are sent, how a structured object is asked for. The retirement dates are in
 * `model-retirements.ts`. No vendor SDK is imported here, so the loopback stand-ins refuse from the
 * same table.
 */

/** The vendor API a family is served by. */
export type ModelVendor = 'anthropic' | 'openai' | 'gemini';

/**
 * Which sampling parameters (`temperature`, `top_p`) a family accepts:
 * - `any`: any value, alone or together;
 * - `one-of`: any value, but not `temperature` and `top_p` together;
 * - `default-only`: only the default value (1), so none is sent;
 * - `none`: no value at all (400 for any `temperature` / `top_p`).
 */
export type SamplingSupport = 'any' | 'one-of' | 'default-only' | 'none';

/**
 * How a structured object is asked for: Anthropic's `output_config.format`, OpenAI's strict
 * `json_schema` response format (Gemini: `responseJsonSchema`), or a forced tool.
 */
export type StructuredOutputMethod = 'output_config.format' | 'json_schema' | 'tool';

/**
 * Thinking when the request says nothing: `off`; `adaptive` (the model decides; a forced tool
 * choice is still accepted); `always` (on whatever the request says: a forced `tool_choice` is
 * refused); `reasoning` (OpenAI reasoning models: internal reasoning tokens, no sampling).
 */
export type ThinkingDefault = 'off' | 'adaptive' | 'always' | 'reasoning';

/** Image limits of one request. */
export interface ModelImageLimits {
  /** Images per request. */
  readonly maxImages: number;
  /** Bytes per image (decoded). */
  readonly maxImageBytes: number;
}

/** One family of the table. */
export interface ModelFamily {
  /** Family name, as docs and warnings print it. */
  readonly family: string;
  readonly vendor: ModelVendor;
  /** Model ids of the SDK's list in this family (a dated snapshot of one of them matches too). */
  readonly models: readonly string[];
  /** Computer-tool versions the family accepts (empty: no computer tool). */
  readonly computerTools: readonly string[];
  /** The tool version a run uses unless `--computer-tool` says otherwise. */
  readonly defaultComputerTool: string | undefined;
  readonly sampling: SamplingSupport;
  readonly thinking: ThinkingDefault;
  readonly structuredOutput: StructuredOutputMethod;
  readonly images: ModelImageLimits;
}

const MB = 1024 * 1024;
const ANTHROPIC_IMAGES: ModelImageLimits = { maxImages: 100, maxImageBytes: 5 * MB };
const OPENAI_IMAGES: ModelImageLimits = { maxImages: 500, maxImageBytes: 20 * MB };
const GEMINI_IMAGES: ModelImageLimits = { maxImages: 3000, maxImageBytes: 20 * MB };

const TOOLSET = 'computer_toolset_20260801';
const COMPUTER_2511 = 'computer_20251124';
const COMPUTER_2501 = 'computer_20250124';

/** The table. Order matters only for docs. */
export const MODEL_FAMILIES: readonly ModelFamily[] = [
  {
    family: 'claude-fable-5',
    vendor: 'anthropic',
    models: ['claude-fable-5', 'claude-fable-5-1', 'claude-fable-5-2'],
    computerTools: [COMPUTER_2511, TOOLSET],
    defaultComputerTool: TOOLSET,
    sampling: 'none',
    thinking: 'always',
    structuredOutput: 'output_config.format',
    images: ANTHROPIC_IMAGES,
  },
  {
    family: 'claude-mythos-5',
    vendor: 'anthropic',
    models: ['claude-mythos-5', 'claude-mythos-5-1', 'claude-mythos-5-2', 'claude-mythos-preview'],
    computerTools: [COMPUTER_2511, TOOLSET],
    defaultComputerTool: TOOLSET,
    sampling: 'none',
    thinking: 'adaptive',
    structuredOutput: 'output_config.format',
    images: ANTHROPIC_IMAGES,
  },
  {
    family: 'claude-5',
    vendor: 'anthropic',
    models: [
      'claude-opus-5',
      'claude-sonnet-5',
      'claude-opus-5-5',
      'claude-sonnet-5-5',
      'claude-haiku-5-5',
    ],
    computerTools: [COMPUTER_2511, TOOLSET],
    defaultComputerTool: TOOLSET,
    sampling: 'default-only',
    thinking: 'adaptive',
    structuredOutput: 'output_config.format',
    images: ANTHROPIC_IMAGES,
  },
  {
    family: 'claude-opus-4-7',
    vendor: 'anthropic',
    models: ['claude-opus-4-7', 'claude-opus-4-8'],
    computerTools: [COMPUTER_2511],
    defaultComputerTool: COMPUTER_2511,
    sampling: 'none',
    thinking: 'adaptive',
    structuredOutput: 'output_config.format',
    images: ANTHROPIC_IMAGES,
  },
  {
    family: 'claude-4-6',
    vendor: 'anthropic',
    models: ['claude-opus-4-6', 'claude-sonnet-4-6', 'claude-opus-4-5'],
    computerTools: [COMPUTER_2501, COMPUTER_2511],
    defaultComputerTool: COMPUTER_2511,
    sampling: 'one-of',
    thinking: 'off',
    structuredOutput: 'output_config.format',
    images: ANTHROPIC_IMAGES,
  },
  {
    family: 'claude-4-5',
    vendor: 'anthropic',
    models: ['claude-sonnet-4-5', 'claude-haiku-4-5'],
    computerTools: [COMPUTER_2501],
    defaultComputerTool: COMPUTER_2501,
    sampling: 'one-of',
    thinking: 'off',
    structuredOutput: 'output_config.format',
    images: ANTHROPIC_IMAGES,
  },
  {
    family: 'openai-reasoning',
    vendor: 'openai',
    models: [
      'gpt-6-astra',
      'gpt-6.1-sol',
      'gpt-6.1-terra',
      'gpt-6-sol',
      'gpt-6-luna',
      'gpt-5.6-sol',
      'gpt-5.6-terra',
      'gpt-5.6-luna',
      'gpt-5.5',
      'gpt-5.4',
      'gpt-5.4-mini',
      'gpt-5.4-nano',
      'gpt-5.3-chat-latest',
      'gpt-5.2',
      'gpt-5.2-chat-latest',
      'gpt-5.2-pro',
      'gpt-5.1',
      'gpt-5.1-codex',
      'gpt-5.1-mini',
      'gpt-5.1-chat-latest',
      'gpt-5',
      'gpt-5-mini',
      'gpt-5-nano',
      'gpt-5-chat-latest',
      'o4-mini',
      'o3',
      'o3-mini',
      'o1',
      'o1-preview',
      'o1-mini',
    ],
    computerTools: ['computer'],
    defaultComputerTool: 'computer',
    sampling: 'none',
    thinking: 'reasoning',
    structuredOutput: 'json_schema',
    images: OPENAI_IMAGES,
  },
  {
    family: 'openai-gpt-4',
    vendor: 'openai',
    models: [
      'gpt-4.1',
      'gpt-4.1-mini',
      'gpt-4.1-nano',
      'gpt-4o',
      'gpt-4o-mini',
      'chatgpt-4o-latest',
      'gpt-4-turbo',
      'gpt-4-turbo-preview',
      'gpt-4',
      'gpt-3.5-turbo',
    ],
    computerTools: ['computer'],
    defaultComputerTool: 'computer',
    sampling: 'any',
    thinking: 'off',
    structuredOutput: 'json_schema',
    images: OPENAI_IMAGES,
  },
  {
    family: 'openai-computer-use-preview',
    vendor: 'openai',
    models: ['computer-use-preview'],
    computerTools: ['computer_use_preview'],
    defaultComputerTool: 'computer_use_preview',
    sampling: 'any',
    thinking: 'reasoning',
    structuredOutput: 'json_schema',
    images: OPENAI_IMAGES,
  },
  {
    family: 'gemini',
    vendor: 'gemini',
    models: [
      'gemini-4-argon',
      'gemini-4-carbon',
      'gemini-4-hydrogen',
      'gemini-3.8-flash',
      'gemini-3.7-flash',
      'gemini-3.6-flash',
      'gemini-3.5-flash',
      'gemini-3.5-flash-lite',
      'gemini-3.1-pro-preview',
      'gemini-3.1-flash-lite',
      'gemini-3-flash-preview',
      'gemini-2.5-pro',
      'gemini-2.5-flash',
      'gemini-2.5-flash-lite',
      'gemini-2.5-computer-use-preview-10-2025',
    ],
    computerTools: ['computer_use'],
    defaultComputerTool: 'computer_use',
    sampling: 'any',
    thinking: 'adaptive',
    structuredOutput: 'json_schema',
    images: GEMINI_IMAGES,
  },
];

/** What an unknown model of each vendor is taken to accept: the request every model of it takes. */
const UNKNOWN: Readonly<Record<ModelVendor, Omit<ModelFamily, 'models'>>> = {
  anthropic: {
    family: 'unknown Claude model',
    vendor: 'anthropic',
    computerTools: [COMPUTER_2501, COMPUTER_2511, TOOLSET],
    defaultComputerTool: COMPUTER_2511,
    sampling: 'none',
    thinking: 'off',
    structuredOutput: 'tool',
    images: ANTHROPIC_IMAGES,
  },
  openai: {
    family: 'unknown OpenAI-wire model',
    vendor: 'openai',
    computerTools: ['computer', 'computer_use_preview'],
    defaultComputerTool: 'computer',
    sampling: 'any',
    thinking: 'off',
    structuredOutput: 'json_schema',
    images: OPENAI_IMAGES,
  },
  gemini: {
    family: 'unknown Gemini model',
    vendor: 'gemini',
    computerTools: ['computer_use'],
    defaultComputerTool: 'computer_use',
    sampling: 'any',
    thinking: 'adaptive',
    structuredOutput: 'json_schema',
    images: GEMINI_IMAGES,
  },
};

/** A model's row: its family's capabilities, and whether the model was in the table. */
export interface ModelCapabilities extends Omit<ModelFamily, 'models'> {
  /** The model id looked up. */
  readonly modelId: string;
  /** False: not in the table; the vendor's conservative default (see `assumed`). */
  readonly known: boolean;
  /** For an unknown model: one line naming what was assumed. */
  readonly assumed?: string;
}

/** A dated snapshot (`-20250929`, `-2025-04-16`, `-10-2025`) without its date, or undefined. */
export function undatedModelId(modelId: string): string | undefined {
  const match = /^(.*?)-(?:\d{8}|\d{4}-\d{2}-\d{2}|\d{2}-\d{4})$/.exec(modelId);
  return match?.[1];
}

const BY_ID = new Map<string, ModelFamily>(
  MODEL_FAMILIES.flatMap(family => family.models.map(id => [id, family] as const)),
);

/** The family of a model id (a dated snapshot matches its undated id), if the table has it. */
export function modelFamilyOf(modelId: string): ModelFamily | undefined {
  const direct = BY_ID.get(modelId);
  if (direct) return direct;
  const undated = undatedModelId(modelId);
  return undated === undefined ? undefined : BY_ID.get(undated);
}

/**
 * The capabilities of `modelId` served by `vendor` (a routed id, without a `provider/` prefix).
 * An unknown model gets the vendor's conservative default, with `assumed` saying what it is.
 */
export function modelCapabilities(modelId: string, vendor: ModelVendor): ModelCapabilities {
  const family = modelFamilyOf(modelId);
  if (family && family.vendor === vendor) {
    const { models: _models, ...rest } = family;
    return { ...rest, modelId, known: true };
  }
  // A name the table lacks that reads like an OpenAI reasoning model (`o5`, `gpt-7-…`) is
  // assumed to be one: it would refuse sampling parameters.
  const fallback =
    vendor === 'openai' && /^(?:o\d|gpt-(?:[5-9]|\d{2,}))/.test(modelId)
      ? {
          ...UNKNOWN.openai,
          family: 'unknown OpenAI reasoning model',
          sampling: 'none' as const,
          thinking: 'reasoning' as const,
        }
      : UNKNOWN[vendor];
  return {
    ...fallback,
    modelId,
    known: false,
    assumed: `${modelId}: not in the model capability table; assumed ${describeAssumption(fallback)}`,
  };
}

function describeAssumption(row: Omit<ModelFamily, 'models'>): string {
  const sampling =
    row.sampling === 'none'
      ? 'no temperature / top_p sent'
      : row.sampling === 'any'
        ? 'temperature and top_p as given'
        : `sampling ${row.sampling}`;
  return `${sampling}, structured output by ${row.structuredOutput === 'tool' ? 'a forced tool' : row.structuredOutput}, computer tool ${row.defaultComputerTool ?? 'none'}`;
}
