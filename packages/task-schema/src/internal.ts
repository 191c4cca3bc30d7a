// @osharm/task-schema/internal: NOT a public API. Glue the other @osharm packages share (JSON file
// reading, path and asset helpers, the capped readers and checks behind the trajectory reader,
// degraded-observation counts, judge-name checks). It may change in any release, patch releases
// included; it is for @osharm packages only. User code imports the main entry, `./trajectory` or
// `./artifacts`.

// JSON files and validation issues
export { parseJsonText, readJsonFile } from './json-file';
export type { JsonFileResult } from './json-file';
export { toJsonPath } from './validation-issue';
export { fromZodIssues } from './zod-issues';

// task assets and injection files
export { resolveTaskAsset, taskAssetRoots } from './task-assets';
export type { TaskAssetResolution } from './task-assets';
export { VS_CODE_INJECTION_EXTENSIONS } from './injection-schema';

// the trajectory reader's helpers
export { isTrajErrorLine } from './trajectory-schema';
export { readCappedText } from './trajectory/read-trajectory';
export { formatBytes, isImageBytes } from './trajectory-file';
export { ensureDirInside } from './artifact-write';
export { readDegradedObservations, summarizeDegraded } from './degraded-observations';
export type { DegradedSummary } from './degraded-observations';

// judgments and printing
export { judgeModelNameIssue } from './judgment-schema';
export { readJudgmentLeniently } from './judgment-provenance';
export type { LenientJudgment } from './judgment-provenance';
export { relativePathsIn } from './control-chars';
