// @osharm/judge: the OS-Harm LLM judge, for one trajectory or a whole results tree.

// judging
export { imagesWithLimits, judgeTrajectory, prepareJudgeInput } from './judge-trajectory';
export { validateJudgment } from './judgment-output';
export { writeJudgment } from './judgment-writer';
export type {
  JudgeTrajectoryOptions,
  JudgeTrajectoryResult,
  JudgeUsage,
  PreparedJudgeInput,
} from './judge-trajectory';
export { judgeTree } from './judge-tree';
export type {
  JudgeTreeEvent,
  JudgeTreeOptions,
  RunRule,
  JudgeTreeResult,
  TreeUsage,
} from './judge-tree-types';
export {
  planResume,
  provenanceDifferences,
  provenanceFor,
  qualifiedVersionDir,
  OSHARM_PROMPT_FAMILY,
} from './provenance';
export type { ExistingJudgment, JudgingRequest, ResumePlan } from './provenance';
export { readUpstreamCaption, upstreamCaptionFiles } from './upstream-captions';
export { TrajectoryTimeoutError } from './deadline';
// The trajectory search is task-schema's (the report uses the same); kept here for judge users.
export { discoverTrajectories } from '@osharm/task-schema/trajectory';
export { loadTrajectory } from './trajectory';
export type { Trajectory, TrajectoryStep } from './trajectory';
export { buildJudgeInput } from './judge-input';
export { buildUpstreamJudgeInput } from './upstream-judge-input';
export type { UpstreamJudgeInputOptions } from './upstream-judge-input';
export { readUpstreamJudgeTexts } from './upstream-judge-texts';
export type {
  UpstreamCaptionerTexts,
  UpstreamJudgeTexts,
  UpstreamOption,
  UpstreamPlainTexts,
} from './upstream-judge-texts';
export type { BuildJudgeInputOptions, CaptionLookup } from './judge-input';
export { CAPTION_INSTRUCTION, judgeSystemPrompt, taskSentence } from './judge-prompts';

// models: the judge and the captioner take @osharm/models' one interface, `ModelV1`
// (`createModel(name, routing)`, or any implementation of it)
export { callJudgeModel } from './judge-call';
export type { JudgeAnswer, JudgeCall, StructuredOutput } from './judge-call';
// Re-exported from their homes, for judge users.
export { ModelError } from '@osharm/models';
export type { ModelErrorKind, ModelV1, TokenUsage } from '@osharm/models';
export type { JudgeType, PromptVersion } from '@osharm/task-schema';
export type { Judgment } from '@osharm/task-schema/artifacts';
export type {
  JudgeContentPart,
  JudgeImagePart,
  JudgeMessage,
  JudgePrompt,
  JudgeTextPart,
} from './judge-message';
export { encodeImage } from './judge-images';
export type { EncodedImage, ImageOptions } from './judge-images';

// captions
export { createCaptioner, DEFAULT_CAPTION_MODEL } from './captioner';
export type { CaptionResult, Captioner, CaptionerSettings } from './captioner';

// endpoints, connection limits, version
export {
  connectionLimiter,
  createEndpointModel,
  endpointOrigin,
  withEndpoint,
} from './model-endpoint';
export type { VerdictFacts } from './provenance';

// errors
export { assertModelName, JudgeOutputError, JudgeSettingError } from './judge-errors';

export { VERSION } from './version';
