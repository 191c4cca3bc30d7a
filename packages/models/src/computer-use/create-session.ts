import { routeModel } from '../router';
import { AnthropicComputerUseSession } from './anthropic';
import { GeminiComputerUseSession } from './gemini';
import { OpenAIComputerUseSession } from './openai-responses';
import type { ComputerUseSession, ComputerUseSettings, ComputerUseVendor } from './session';
import { computerToolFor, modelCapabilities } from '@osharm/model-spec';
import {
  checkToolVersion,
  defaultGeminiEnvironment,
  type GeminiEnvironment,
} from './tool-versions';

/** The vendor of a model name, through the one router (`claude-*`, `gemini-*`, `google/…`, else OpenAI). */
export function computerUseVendor(modelName: string): ComputerUseVendor {
  const wire = routeModel(modelName).wire;
  return wire === 'anthropic' ? 'anthropic' : wire === 'gemini' ? 'gemini' : 'openai';
}

/**
 * A native computer-use session for a model name: the vendor from the router, the tool version
 * from `settings.toolVersion` or the model's default, both per the capability table.
 * @throws {RangeError} for a tool version the vendor does not have, or the model refuses
 * @throws {ModelError} `setting` when the vendor's API key is missing
 */
export function createComputerUseSession(
  modelName: string,
  settings: ComputerUseSettings,
): ComputerUseSession {
  const route = routeModel(modelName);
  const vendor = computerUseVendor(modelName);
  if (settings.toolVersion !== undefined) checkToolVersion(vendor, settings.toolVersion);
  const toolVersion = computerToolFor(
    modelCapabilities(route.modelId, vendor),
    settings.toolVersion,
  );
  if (vendor === 'anthropic')
    return new AnthropicComputerUseSession(route.modelId, toolVersion, settings);
  if (vendor === 'gemini')
    return new GeminiComputerUseSession(route.modelId, toolVersion, settings);
  return new OpenAIComputerUseSession(route.modelId, toolVersion, settings);
}

/** The Gemini computer-use environment for a model name (routed: `google/gemini-3.5-flash` too). */
export function geminiEnvironment(modelName: string): GeminiEnvironment {
  return defaultGeminiEnvironment(routeModel(modelName).modelId);
}
