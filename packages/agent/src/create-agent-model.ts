import {
  createAnthropicAgentModel,
  type AnthropicAgentModelSettings,
} from './anthropic-agent-model';
import type { AgentModelV1 } from './agent-model';
import { createOpenAIAgentModel, type OpenAIAgentModelSettings } from './openai-agent-model';

/** Settings per vendor for {@link createAgentModel}. */
export interface AgentModelRouting {
  readonly openai?: OpenAIAgentModelSettings;
  readonly anthropic?: AnthropicAgentModelSettings;
}

/**
 * An agent model from a model name: names starting with `claude` go to Anthropic, every other name
 * (`gpt-*`, `o3`, `o4-mini`, or a local model's name) to OpenAI or the OpenAI-compatible server at
 * `OPENAI_BASE_URL`. Upstream's other backends (Gemini, Together, Groq, DashScope) are reachable
 * through OpenAI-compatible endpoints.
 */
export function createAgentModel(modelId: string, routing: AgentModelRouting = {}): AgentModelV1 {
  return modelId.startsWith('claude')
    ? createAnthropicAgentModel(modelId, routing.anthropic)
    : createOpenAIAgentModel(modelId, routing.openai);
}
