// Native computer-use agents: the one place where each vendor's actions become the guest's
// pyautogui actions, in screen pixels.
export { runActionBatch } from './action-batch';
export type { BatchOutcome, GuestExecute } from './action-batch';
export {
  ANTHROPIC_ACTIONS,
  isAnthropicComputerUse,
  mapAnthropicToolUse,
} from './anthropic-actions';
export type { AnthropicToolUse } from './anthropic-actions';
export {
  GEMINI_BROWSER_ONLY,
  GEMINI_DESKTOP_FUNCTIONS,
  GEMINI_PREDEFINED,
  mapGeminiCall,
} from './gemini-actions';
export {
  UnknownKeyError,
  openaiKeys,
  playwrightCombination,
  pyautoguiKey,
  xdotoolCombination,
} from './keys';
export type { MappedAction } from './mapped-action';
export { NativeAgent, createNativeAgent } from './native-agent';
export type { NativeAgentSettings } from './native-agent';
export { createScriptedSession, readNativeScript, readNativeScriptSync } from './scripted-session';
export { checkToolVersion, computerUseVendor, SAFETY_CHECK_POLICIES } from '@osharm/models';
export type { ComputerUseVendor, SafetyCheckPolicy } from '@osharm/models';
export type { NativeScript } from './scripted-session';
export { chunkText, pyautoguiCode } from './native-action';
export type { MouseButton, NativeAction, ScreenPoint } from './native-action';
export {
  OPENAI_ACTIONS,
  computerCallActions,
  mapOpenaiAction,
  mapOpenaiComputerCall,
} from './openai-actions';
export {
  ANTHROPIC_IMAGE_LIMITS,
  GEMINI_IMAGE_LIMITS,
  OPENAI_IMAGE_LIMITS,
  imageSizeFor,
  scalingFor,
  screenshotForModel,
  toModel,
  toScreen,
} from './scaling';
export type { ImageLimits, ModelImage, Scaling, Size } from './scaling';
