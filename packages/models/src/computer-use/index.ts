export { computerUseVendor, createComputerUseSession, geminiEnvironment } from './create-session';
export { GEMINI_SAFETY_POLICIES, geminiSafetyRecord, SAFETY_CHECK_POLICIES } from './session';
export type {
  CallOutcome,
  ComputerUseCall,
  ComputerUseSession,
  ComputerUseSettings,
  ComputerUseTurn,
  ComputerUseVendor,
  GeminiSafetyPolicy,
  GeminiSafetySettings,
  SafetyCheck,
  SafetyCheckPolicy,
  Screenshot,
} from './session';
export {
  ANTHROPIC_TOOL_VERSIONS,
  GEMINI_TOOL_VERSIONS,
  OPENAI_TOOL_VERSIONS,
  checkToolVersion,
  defaultToolVersion,
} from './tool-versions';
export type { GeminiEnvironment } from './tool-versions';
