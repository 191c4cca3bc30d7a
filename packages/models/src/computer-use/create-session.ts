import { routeModel } from '../router';
import { AnthropicComputerUseSession } from './anthropic';
import { GeminiComputerUseSession } from './gemini';
import { OpenAIComputerUseSession } from './openai-responses';
import type { ComputerUseSession, ComputerUseSettings, ComputerUseVendor } from './session';
import {
  checkToolVersion,
  defaultGeminiEnvironment,
  defaultToolVersion,
  type GeminiEnvironment,
} from './tool-versions';

/** The vendor of a model name, through the one router (`claude-*`, `gemini-*`, `google/…`, else OpenAI). */
export function computerUseVendor(modelName: string): ComputerUseVendor {
  const wire = routeModel(modelName).wire;
  return wire === 'anthropic' ? 'anthropic' : wire === 'gemini' ? 'gemini' : 'openai';
}

/**
 * A native computer-use session for a model name: the vendor from the router, the tool version
 * from `settings.toolVersion` or the model's default.
 * @throws {RangeError} for a tool version the vendor does not have
 * @throws {ModelError} `setting` when the vendor's API key is missing
 */
export function createComputerUseSession(
  modelName: string,
  settings: ComputerUseSettings,
): ComputerUseSession {
  const route = routeModel(modelName);
  const vendor = computerUseVendor(modelName);
  const toolVersion = checkToolVersion(
    vendor,
    settings.toolVersion ?? defaultToolVersion(vendor, route.modelId),
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
