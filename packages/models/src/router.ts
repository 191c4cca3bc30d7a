import {
  createAnthropicMessagesModel,
  type AnthropicMessagesModelSettings,
} from './anthropic-messages-model';
import { ModelError, type ModelProvider, type ModelV1 } from '@osharm/model-spec';
import { createOpenAIChatModel, type OpenAIChatModelSettings } from './openai-chat-model';

/** Where a model name goes. */
export interface ModelRoute {
  /** `openai`, `anthropic`, or `openai-compatible` (the OpenAI wire format at a base URL). */
  readonly provider: ModelProvider;
  /** The wire format: `openai` (OpenAI and compatible servers) or `anthropic`. */
  readonly wire: 'openai' | 'anthropic' | 'gemini';
  /** The id sent to the provider: the name without its `provider/` prefix. */
  readonly modelId: string;
  /** True when the name carried an explicit `provider/` prefix. */
  readonly explicit: boolean;
}

const PREFIXES: readonly ModelProvider[] = ['openai-compatible', 'openai', 'anthropic', 'google'];

const WIRE: Readonly<Record<ModelProvider, ModelRoute['wire']>> = {
  'openai-compatible': 'openai',
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'gemini',
};

/**
 * Routes a model name — the one place that decides a vendor from a name. An explicit
 * `provider/model` (`openai/gpt-4.1`, `anthropic/claude-sonnet-4-20250514`,
 * `openai-compatible/Qwen/Qwen2.5-VL-72B-Instruct`) goes to that provider, as Inspect and the AI
 * SDK name models. A bare name keeps upstream's rule: `claude*` → Anthropic, everything else
 * (`gpt-*`, `o1`/`o3`/`o4-mini`, a local server's model) → the OpenAI wire format (OpenAI, or the
 * OpenAI-compatible server at the adapter's base URL).
 */
export function routeModel(name: string): ModelRoute {
  for (const provider of PREFIXES) {
    const prefix = `${provider}/`;
    if (name.startsWith(prefix) && name.length > prefix.length) {
      return {
        provider,
        wire: WIRE[provider],
        modelId: name.slice(prefix.length),
        explicit: true,
      };
    }
  }
  if (name.startsWith('claude'))
    return { provider: 'anthropic', wire: 'anthropic', modelId: name, explicit: false };
  if (name.startsWith('gemini'))
    return { provider: 'google', wire: 'gemini', modelId: name, explicit: false };
  // A bare name with a base URL (OPENAI_BASE_URL, --base-url) reaches that OpenAI-compatible
  // server through the same adapter; the provider stays `openai`, as upstream named it.
  return { provider: 'openai', wire: 'openai', modelId: name, explicit: false };
}

/** Adapter settings per wire format for {@link createModel}. */
export interface ModelRouting {
  readonly openai?: OpenAIChatModelSettings;
  readonly anthropic?: AnthropicMessagesModelSettings;
}

/**
 * A model from a name (see {@link routeModel}), with the settings of the adapter it routes to.
 * Upstream's other backends (Gemini, Together, Groq, DashScope) are reachable through their
 * OpenAI-compatible endpoints.
 */
export function createModel(name: string, routing: ModelRouting = {}): ModelV1 {
  const route = routeModel(name);
  if (route.wire === 'gemini')
    throw new ModelError({
      kind: 'setting',
      provider: route.provider,
      message: `Gemini models run only as native computer-use agents (createComputerUseSession, osharm run --agent native): "${name}"`,
    });
  if (route.wire === 'anthropic')
    return createAnthropicMessagesModel(route.modelId, routing.anthropic);
  return createOpenAIChatModel(
    route.modelId,
    routing.openai,
    route.provider === 'anthropic' || route.provider === 'google' ? 'openai' : route.provider,
  );
}
