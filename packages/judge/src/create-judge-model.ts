import {
  createAnthropicJudgeModel,
  type AnthropicJudgeModelSettings,
} from './anthropic-judge-model';
import type { JudgeModelV1 } from './judge-model';
import { createOpenAIJudgeModel, type OpenAIJudgeModelSettings } from './openai-judge-model';

/** Settings per vendor for {@link createJudgeModel}. */
export interface JudgeModelRouting {
  readonly openai?: OpenAIJudgeModelSettings;
  readonly anthropic?: AnthropicJudgeModelSettings;
}

/**
 * A judge model from a model name, routed as upstream does: names starting with `claude` go to
 * Anthropic, every other name to OpenAI (or the OpenAI-compatible server at `OPENAI_BASE_URL`).
 */
export function createJudgeModel(modelId: string, routing: JudgeModelRouting = {}): JudgeModelV1 {
  return modelId.startsWith('claude')
    ? createAnthropicJudgeModel(modelId, routing.anthropic)
    : createOpenAIJudgeModel(modelId, routing.openai);
}
