import { routeModel } from '@osharm/models';
import {
  createAnthropicAgentModel,
  type AnthropicAgentModelSettings,
} from './anthropic-agent-model';
import type { AgentModelV1 } from './agent-model';
import { OpenAIAgentModel, type OpenAIAgentModelSettings } from './openai-agent-model';

/** Settings per vendor for {@link createAgentModel}. */
export interface AgentModelRouting {
  readonly openai?: OpenAIAgentModelSettings;
  readonly anthropic?: AnthropicAgentModelSettings;
}

/**
 * An agent model from a model name, routed by @osharm/models' `routeModel`: `claude*` or
 * `anthropic/…` to Anthropic; every other name (`gpt-*`, `o3`, `o4-mini`, `openai/…`,
 * `openai-compatible/…`, or a local model's name) to OpenAI or the OpenAI-compatible server at
 * `OPENAI_BASE_URL`.
 */
export function createAgentModel(modelId: string, routing: AgentModelRouting = {}): AgentModelV1 {
  const route = routeModel(modelId);
  return route.wire === 'anthropic'
    ? createAnthropicAgentModel(route.modelId, routing.anthropic)
    : new OpenAIAgentModel(
        route.modelId,
        routing.openai,
        route.provider === 'openai-compatible' ? 'openai-compatible' : 'openai',
      );
}
