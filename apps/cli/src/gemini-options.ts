import { Option, type Command } from 'commander';
import {
  GEMINI_SAFETY_POLICIES,
  type GeminiSafetyPolicy,
  type GeminiSafetySettings,
} from '@osharm/models';

/** The flags of Gemini's computer-use safety settings, as commander parses them. */
export interface GeminiSafetyFlags {
  geminiDisableSafetyPolicy?: GeminiSafetyPolicy[];
  geminiPromptInjectionDetection?: 'on' | 'off';
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** Adds `--gemini-disable-safety-policy` (repeatable) and `--gemini-prompt-injection-detection`. */
export function addGeminiSafetyOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--gemini-disable-safety-policy <policy>',
        "native Gemini agent: turn off one of the computer-use tool's safety policies (repeatable; default: none, the vendor's default; recorded in params.native.gemini_safety)",
      )
        .choices([...GEMINI_SAFETY_POLICIES])
        .argParser(collect),
    )
    .addOption(
      new Option(
        '--gemini-prompt-injection-detection <state>',
        "native Gemini agent: the computer-use tool's prompt-injection detection (default: unset, the vendor's default; recorded)",
      ).choices(['on', 'off']),
    );
}

/** The settings the flags ask for; undefined when neither is given (the vendor's default). */
export function geminiSafetyFrom(flags: GeminiSafetyFlags): GeminiSafetySettings | undefined {
  const { geminiDisableSafetyPolicy: disabled, geminiPromptInjectionDetection: detection } = flags;
  if (disabled === undefined && detection === undefined) return undefined;
  return {
    ...(disabled && { disabledSafetyPolicies: [...new Set(disabled)] }),
    ...(detection && { promptInjectionDetection: detection === 'on' }),
  };
}
