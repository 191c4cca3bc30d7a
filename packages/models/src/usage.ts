// Token usage as each vendor reports it, in the one TokenUsage shape: input counts every input token
// (cache reads and writes included), output every output token (reasoning included); the parts the
// vendor names are kept. An answer without a usage block counts as one unreported call.
import type { TokenUsage } from '@osharm/model-spec';

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;

const object = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;

const unreported: TokenUsage = { inputTokens: 0, outputTokens: 0, unreportedCalls: 1 };

function parts(
  input: number,
  output: number,
  extra: { cached?: number; written?: number; reasoning?: number },
): TokenUsage {
  return {
    inputTokens: input,
    outputTokens: output,
    ...(extra.cached !== undefined && { cachedInputTokens: extra.cached }),
    ...(extra.written !== undefined && { cacheWriteTokens: extra.written }),
    ...(extra.reasoning !== undefined && { reasoningTokens: extra.reasoning }),
  };
}

/**
 * OpenAI Chat Completions `usage`: `prompt_tokens` (cache reads included, as
 * `prompt_tokens_details.cached_tokens`), `completion_tokens` (reasoning included, as
 * `completion_tokens_details.reasoning_tokens`).
 */
export function openAIChatUsage(usage: unknown): TokenUsage {
  const body = object(usage);
  const input = count(body?.prompt_tokens);
  const output = count(body?.completion_tokens);
  if (input === undefined || output === undefined) return unreported;
  return parts(input, output, {
    cached: count(object(body?.prompt_tokens_details)?.cached_tokens),
    reasoning: count(object(body?.completion_tokens_details)?.reasoning_tokens),
  });
}

/**
 * OpenAI Responses `usage`: `input_tokens` (with `input_tokens_details.cached_tokens`),
 * `output_tokens` (with `output_tokens_details.reasoning_tokens`).
 */
export function openAIResponsesUsage(usage: unknown): TokenUsage {
  const body = object(usage);
  const input = count(body?.input_tokens);
  const output = count(body?.output_tokens);
  if (input === undefined || output === undefined) return unreported;
  return parts(input, output, {
    cached: count(object(body?.input_tokens_details)?.cached_tokens),
    reasoning: count(object(body?.output_tokens_details)?.reasoning_tokens),
  });
}

/**
 * Anthropic Messages `usage`: `input_tokens` counts only the uncached input; `cache_read_input_tokens`
 * and `cache_creation_input_tokens` are added in. Thinking tokens are in `output_tokens` and not
 * reported apart.
 */
export function anthropicUsage(usage: unknown): TokenUsage {
  const body = object(usage);
  const input = count(body?.input_tokens);
  const output = count(body?.output_tokens);
  if (input === undefined || output === undefined) return unreported;
  const cached = count(body?.cache_read_input_tokens);
  const written = count(body?.cache_creation_input_tokens);
  return parts(input + (cached ?? 0) + (written ?? 0), output, { cached, written });
}

/**
 * Gemini `usageMetadata`: `promptTokenCount` (cache reads included, as `cachedContentTokenCount`),
 * `candidatesTokenCount` plus `thoughtsTokenCount` (billed as output) and `toolUsePromptTokenCount`
 * (billed as input).
 */
export function geminiUsage(usage: unknown): TokenUsage {
  const body = object(usage);
  const prompt = count(body?.promptTokenCount);
  if (prompt === undefined) return unreported;
  const thoughts = count(body?.thoughtsTokenCount);
  const toolPrompt = count(body?.toolUsePromptTokenCount) ?? 0;
  return parts(prompt + toolPrompt, (count(body?.candidatesTokenCount) ?? 0) + (thoughts ?? 0), {
    cached: count(body?.cachedContentTokenCount),
    reasoning: thoughts,
  });
}
