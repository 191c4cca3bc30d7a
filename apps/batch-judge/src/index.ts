// @osharm/batch-judge: upstream's judge/run_judge_batch.py as a command, for the
// `osharm-batch-judge` bin and for apps/cli's `osharm judge`.
export { batchJudgeCommand, IMAGE_FORMATS } from './command';
export type { BatchJudgeFlags } from './command';
export { runBatchJudge } from './program';
export { normalizeArgv } from './argv';
export { ExitCode, processIo } from './io';
export type { BatchJudgeIo, BatchJudgeRun } from './io';
export { VERSION } from './version';
