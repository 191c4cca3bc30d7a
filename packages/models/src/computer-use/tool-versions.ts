/**
 * The computer-tool versions of each vendor. Which one a model accepts and gets by default is the
 * capability table's (`modelCapabilities` of @osharm/model-spec); `--computer-tool` overrides the
 * default within what the table says the model accepts.
 */
import { modelCapabilities } from '@osharm/model-spec';
import type { ComputerUseVendor } from './session';

export const ANTHROPIC_TOOL_VERSIONS = [
  'computer_20250124',
  'computer_20251124',
  'computer_toolset_20260801',
] as const;
export const OPENAI_TOOL_VERSIONS = ['computer', 'computer_use_preview'] as const;
export const GEMINI_TOOL_VERSIONS = ['computer_use'] as const;

/** The beta header a classic Anthropic tool version needs (none for the GA toolset). */
export const ANTHROPIC_BETA: Readonly<Record<string, string>> = {
  computer_20250124: 'computer-use-2025-01-24',
  computer_20251124: 'computer-use-2025-11-24',
};

/** The default tool version for a model of a vendor: the capability table's. */
export function defaultToolVersion(vendor: ComputerUseVendor, modelId: string): string {
  const capabilities = modelCapabilities(modelId, vendor);
  return capabilities.defaultComputerTool ?? checkToolVersion(vendor, '');
}

/** Throws a RangeError naming the versions of the vendor when `version` is not one of them. */
export function checkToolVersion(vendor: ComputerUseVendor, version: string): string {
  const known: readonly string[] =
    vendor === 'anthropic'
      ? ANTHROPIC_TOOL_VERSIONS
      : vendor === 'openai'
        ? OPENAI_TOOL_VERSIONS
        : GEMINI_TOOL_VERSIONS;
  if (!known.includes(version))
    throw new RangeError(
      `computer tool "${version}" is not one of ${vendor}'s: ${known.join(', ')}`,
    );
  return version;
}

/** Gemini's computer-use environments (the `Environment` enum of `@google/genai`). */
export type GeminiEnvironment = 'ENVIRONMENT_BROWSER' | 'ENVIRONMENT_DESKTOP';

/**
 * The computer-use environment for a Gemini model id: `ENVIRONMENT_DESKTOP` (OS-level actions:
 * `click`, `type`, `hotkey`, …) from Gemini 3.5 on; the browser environment for the earlier
 * computer-use models (the 2.5 preview, Gemini 3 previews), whose predefined functions are the
 * browser set (`click_at`, `type_text_at`, …) and the only environment they take.
 */
export function defaultGeminiEnvironment(modelId: string): GeminiEnvironment {
  const version = /^gemini-(\d+)(?:\.(\d+))?/.exec(modelId);
  if (!version) return 'ENVIRONMENT_BROWSER';
  const major = Number(version[1]);
  const minor = Number(version[2] ?? 0);
  return major > 3 || (major === 3 && minor >= 5) ? 'ENVIRONMENT_DESKTOP' : 'ENVIRONMENT_BROWSER';
}
