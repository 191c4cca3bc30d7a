import type { ModelFault } from './faults';
import { HttpError, isRecord } from './http-exchange';

/** Which wire format a call used. */
export type ModelVendor = 'openai' | 'anthropic' | 'gemini';

/** Whether a call was made on its own or as one request of a batch. */
export type CallRoute = 'direct' | 'batch';

/**
 * How a request asked for structured output:
 * - `json-schema`: OpenAI `response_format: {type: 'json_schema'}`, Anthropic
 *   `output_config.format` or the older `output_format` (`{type: 'json_schema'}`);
 * - `json-object`: OpenAI `response_format: {type: 'json_object'}`;
 * - `forced-tool`: OpenAI `tools` + `tool_choice: {type: 'function', function: {name}}` (or
 *   `'required'` with one tool), Anthropic `tools` + `tool_choice: {type: 'tool', name}` (or
 *   `{type: 'any'}` with one tool);
 * - `legacy-function`: OpenAI `functions` + `function_call: {name}`;
 * - `none`: plain text was asked for.
 */
export type StructuredOutputMode =
  'none' | 'json-schema' | 'json-object' | 'forced-tool' | 'legacy-function';

/** The structured output a request asked for. */
export interface StructuredOutputRequest {
  mode: StructuredOutputMode;
  /** Request field that asked for it, e.g. `response_format`, `tool_choice`, `output_config.format`. */
  field?: string;
  /** Schema name (`json_schema.name`) or the forced tool / function name. */
  name?: string;
  /** The JSON schema sent with the request, when there is one. */
  schema?: Record<string, unknown>;
}

/** What `respond` is told about one model call. */
export interface ModelCall {
  vendor: ModelVendor;
  /** `/v1/chat/completions`, `/v1/responses`, `/v1/messages` or `/v1beta/models/{model}:generateContent`. */
  endpoint: string;
  model: string;
  /** The `messages` array as sent (Responses: the `input` items; Gemini: the `contents`). */
  messages: unknown[];
  /**
   * The system prompt as text: Anthropic top-level `system` (blocks joined with blank lines), or
   * the OpenAI `system`/`developer` messages joined the same way; `undefined` when there is none.
   */
  system: string | undefined;
  /** The parsed JSON request body (for a batch: the request's `body` / `params`). */
  body: Record<string, unknown>;
  structuredOutput: StructuredOutputRequest;
  /** Name of the tool (or legacy function) the request forces, if any. */
  forcedToolName: string | undefined;
  /** Number of image parts in the messages (OpenAI `image_url`, Anthropic `image` blocks). */
  imageCount: number;
  /** Position of this call in `server.calls` (0-based count of the model calls before it). */
  index: number;
  via: CallRoute;
  /** The fault the stand-in injects into this call; it answers with the fault whatever respond says. */
  fault: ModelFault | undefined;
  /** For batch calls: the batch id and the request's `custom_id`. */
  batchId?: string;
  customId?: string;
}

/** One model call as recorded in `server.calls`. */
export interface RecordedModelCall {
  vendor: ModelVendor;
  endpoint: string;
  model: string;
  /** Parsed JSON request body (for a batch: the request's `body` / `params`). */
  body: Record<string, unknown>;
  /**
   * Request headers, lower-case names; `authorization` and `x-api-key` values are `<redacted>`.
   * For batch calls: the headers of the request that created the batch.
   */
  headers: Record<string, string>;
  via: CallRoute;
  index: number;
  /** The injected fault, if any. */
  fault?: ModelFault;
  batchId?: string;
  customId?: string;
  /** Why the stand-in answered 500: respond() threw or returned something that is not a reply. */
  error?: string;
}

/** The parts of a {@link ModelCall} read from the request itself. */
export type DescribedRequest = Omit<ModelCall, 'index' | 'via' | 'fault' | 'batchId' | 'customId'>;

const IMAGE_PART_TYPES = new Set(['image', 'image_url', 'input_image', 'computer_screenshot']);

/** An image part: a typed image block, or a Gemini `inlineData` part with an image MIME type. */
function isImagePart(value: Record<string, unknown>): boolean {
  if (typeof value.type === 'string' && IMAGE_PART_TYPES.has(value.type)) return true;
  return (
    isRecord(value.inlineData) &&
    typeof value.inlineData.mimeType === 'string' &&
    value.inlineData.mimeType.startsWith('image/')
  );
}

/** Characters an image counts for in the default token estimate (≈ 1000 tokens). */
const IMAGE_CHARACTERS = 4000;

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content
    .filter(isRecord)
    .map(part => part.text)
    .filter((text): text is string => typeof text === 'string');
  return texts.length > 0 ? texts.join('\n\n') : undefined;
}

function countImages(value: unknown): number {
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + countImages(item), 0);
  if (!isRecord(value)) return 0;
  if (isImagePart(value)) return 1;
  return Object.values(value).reduce<number>((sum, item) => sum + countImages(item), 0);
}

function countCharacters(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).length;
  if (Array.isArray(value))
    return value.reduce<number>((sum, item) => sum + countCharacters(item), 0);
  if (!isRecord(value)) return 0;
  if (isImagePart(value)) return IMAGE_CHARACTERS;
  return Object.values(value).reduce<number>((sum, item) => sum + countCharacters(item), 0);
}

/** Rough token count of a text: one token per 4 characters, at least 1. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/**
 * Rough input token count of a request: its messages, system prompt and tools at one token per
 * 4 characters, an image at about 1000 tokens.
 */
export function estimateInputTokens(body: Record<string, unknown>): number {
  const characters =
    countCharacters(body.messages) +
    countCharacters(body.input) +
    countCharacters(body.contents) +
    countCharacters(body.instructions) +
    countCharacters(body.systemInstruction) +
    countCharacters(body.system) +
    countCharacters(body.tools) +
    countCharacters(body.functions);
  return Math.max(1, Math.ceil(characters / 4));
}

function schemaOf(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}

function requireModelAndMessages(body: Record<string, unknown>): {
  model: string;
  messages: unknown[];
} {
  if (typeof body.model !== 'string' || body.model === '')
    throw new HttpError(400, 'model: a non-empty string is required');
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw new HttpError(400, 'messages: a non-empty array is required');
  if (body.stream === true)
    throw new HttpError(400, 'stream: streaming is not supported by the model stand-in');
  return { model: body.model, messages: body.messages };
}

function openaiStructuredOutput(body: Record<string, unknown>): StructuredOutputRequest {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
  const toolChoice = body.tool_choice;
  let forcedTool: string | undefined;
  if (isRecord(toolChoice) && toolChoice.type === 'function' && isRecord(toolChoice.function))
    forcedTool =
      typeof toolChoice.function.name === 'string' ? toolChoice.function.name : undefined;
  else if (toolChoice === 'required' && tools.length === 1 && isRecord(tools[0]!.function))
    forcedTool = typeof tools[0]!.function.name === 'string' ? tools[0]!.function.name : undefined;
  if (forcedTool !== undefined) {
    const tool = tools.find(item => isRecord(item.function) && item.function.name === forcedTool);
    const schema = tool && isRecord(tool.function) ? schemaOf(tool.function.parameters) : undefined;
    return {
      mode: 'forced-tool',
      field: 'tool_choice',
      name: forcedTool,
      ...(schema && { schema }),
    };
  }

  const functionCall = body.function_call;
  if (isRecord(functionCall) && typeof functionCall.name === 'string') {
    const functions = Array.isArray(body.functions) ? body.functions.filter(isRecord) : [];
    const schema = schemaOf(functions.find(item => item.name === functionCall.name)?.parameters);
    return {
      mode: 'legacy-function',
      field: 'function_call',
      name: functionCall.name,
      ...(schema && { schema }),
    };
  }

  const responseFormat = body.response_format;
  if (isRecord(responseFormat) && responseFormat.type === 'json_schema') {
    const jsonSchema = isRecord(responseFormat.json_schema) ? responseFormat.json_schema : {};
    const schema = schemaOf(jsonSchema.schema);
    return {
      mode: 'json-schema',
      field: 'response_format',
      ...(typeof jsonSchema.name === 'string' && { name: jsonSchema.name }),
      ...(schema && { schema }),
    };
  }
  if (isRecord(responseFormat) && responseFormat.type === 'json_object')
    return { mode: 'json-object', field: 'response_format' };
  return { mode: 'none' };
}

function anthropicStructuredOutput(body: Record<string, unknown>): StructuredOutputRequest {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
  const toolChoice = body.tool_choice;
  let forcedTool: string | undefined;
  if (isRecord(toolChoice) && toolChoice.type === 'tool' && typeof toolChoice.name === 'string')
    forcedTool = toolChoice.name;
  else if (
    isRecord(toolChoice) &&
    toolChoice.type === 'any' &&
    tools.length === 1 &&
    typeof tools[0]!.name === 'string'
  )
    forcedTool = tools[0]!.name;
  if (forcedTool !== undefined) {
    const schema = schemaOf(tools.find(tool => tool.name === forcedTool)?.input_schema);
    return {
      mode: 'forced-tool',
      field: 'tool_choice',
      name: forcedTool,
      ...(schema && { schema }),
    };
  }

  const outputConfig = isRecord(body.output_config) ? body.output_config : {};
  for (const [field, format] of [
    ['output_config.format', outputConfig.format],
    ['output_format', body.output_format],
  ] as const) {
    if (isRecord(format) && format.type === 'json_schema') {
      const schema = schemaOf(format.schema);
      return { mode: 'json-schema', field, ...(schema && { schema }) };
    }
  }
  return { mode: 'none' };
}

/** Reads an OpenAI chat completion request; an invalid one is a 400. */
export function describeOpenaiRequest(body: Record<string, unknown>): DescribedRequest {
  const { model, messages } = requireModelAndMessages(body);
  const systemTexts = messages
    .filter(isRecord)
    .filter(message => message.role === 'system' || message.role === 'developer')
    .map(message => textOf(message.content))
    .filter((text): text is string => text !== undefined);
  const structuredOutput = openaiStructuredOutput(body);
  return {
    vendor: 'openai',
    endpoint: '/v1/chat/completions',
    model,
    messages,
    system: systemTexts.length > 0 ? systemTexts.join('\n\n') : undefined,
    body,
    structuredOutput,
    forcedToolName:
      structuredOutput.mode === 'forced-tool' || structuredOutput.mode === 'legacy-function'
        ? structuredOutput.name
        : undefined,
    imageCount: countImages(messages),
  };
}

/** Reads an Anthropic messages request; an invalid one is a 400. */
export function describeAnthropicRequest(body: Record<string, unknown>): DescribedRequest {
  const { model, messages } = requireModelAndMessages(body);
  if (!(typeof body.max_tokens === 'number' && Number.isInteger(body.max_tokens)))
    throw new HttpError(400, 'max_tokens: an integer is required');
  const structuredOutput = anthropicStructuredOutput(body);
  return {
    vendor: 'anthropic',
    endpoint: '/v1/messages',
    model,
    messages,
    system: textOf(body.system),
    body,
    structuredOutput,
    forcedToolName: structuredOutput.mode === 'forced-tool' ? structuredOutput.name : undefined,
    imageCount: countImages(messages),
  };
}

/** Reads an OpenAI Responses request (`input` a string or items); an invalid one is a 400. */
export function describeResponsesRequest(body: Record<string, unknown>): DescribedRequest {
  if (typeof body.model !== 'string' || body.model === '')
    throw new HttpError(400, 'model: a non-empty string is required');
  if (body.stream === true)
    throw new HttpError(400, 'stream: streaming is not supported by the model stand-in');
  const input = body.input;
  if (!(typeof input === 'string' || (Array.isArray(input) && input.length > 0)))
    throw new HttpError(400, 'input: a string or a non-empty array is required');
  const items = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
  const systemTexts = [
    typeof body.instructions === 'string' ? body.instructions : undefined,
    ...items
      .filter(isRecord)
      .filter(item => item.role === 'system' || item.role === 'developer')
      .map(item => textOf(item.content)),
  ].filter((text): text is string => text !== undefined);
  const text = isRecord(body.text) ? body.text : {};
  const format = isRecord(text.format) ? text.format : {};
  const structuredOutput: StructuredOutputRequest =
    format.type === 'json_schema'
      ? {
          mode: 'json-schema',
          field: 'text.format',
          ...(typeof format.name === 'string' && { name: format.name }),
          ...(isRecord(format.schema) && { schema: format.schema }),
        }
      : format.type === 'json_object'
        ? { mode: 'json-object', field: 'text.format' }
        : { mode: 'none' };
  return {
    vendor: 'openai',
    endpoint: '/v1/responses',
    model: body.model,
    messages: items,
    system: systemTexts.length > 0 ? systemTexts.join('\n\n') : undefined,
    body,
    structuredOutput,
    forcedToolName: undefined,
    imageCount: countImages(items),
  };
}

/**
 * Reads a Gemini generateContent request for `model` (from the URL, API `version` `v1beta` or
 * `v1`); an invalid one is a 400.
 */
export function describeGeminiRequest(
  model: string,
  body: Record<string, unknown>,
  version = 'v1beta',
): DescribedRequest {
  if (model === '') throw new HttpError(400, 'model: a model name is required in the URL');
  if (!Array.isArray(body.contents) || body.contents.length === 0)
    throw new HttpError(400, 'contents: a non-empty array is required');
  const systemInstruction = isRecord(body.systemInstruction) ? body.systemInstruction : {};
  const config = isRecord(body.generationConfig) ? body.generationConfig : {};
  const schema = isRecord(config.responseJsonSchema)
    ? config.responseJsonSchema
    : isRecord(config.responseSchema)
      ? config.responseSchema
      : undefined;
  return {
    vendor: 'gemini',
    endpoint: `/${version}/models/${model}:generateContent`,
    model,
    messages: body.contents,
    system: textOf(systemInstruction.parts),
    body,
    structuredOutput:
      config.responseMimeType === 'application/json'
        ? { mode: 'json-schema', field: 'generationConfig', ...(schema && { schema }) }
        : { mode: 'none' },
    forcedToolName: undefined,
    imageCount: countImages(body.contents),
  };
}
