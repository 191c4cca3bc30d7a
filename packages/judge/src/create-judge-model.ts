import { routeModel } from '@osharm/models';
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
 * A judge model from a model name, routed by @osharm/models' `routeModel`: `claude*` or
 * `anthropic/…` to Anthropic, every other name (`openai/…`, `openai-compatible/…` included) to
 * OpenAI or the OpenAI-compatible server at `OPENAI_BASE_URL`.
 */
export function createJudgeModel(modelId: string, routing: JudgeModelRouting = {}): JudgeModelV1 {
  const route = routeModel(modelId);
  return route.wire === 'anthropic'
    ? createAnthropicJudgeModel(route.modelId, routing.anthropic)
    : createOpenAIJudgeModel(route.modelId, routing.openai);
}
