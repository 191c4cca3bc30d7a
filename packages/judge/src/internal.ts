// @osharm/judge/internal: NOT a public API. Glue the judge shares with @osharm/judge-cli and
// @osharm/runner (where a tree's batch results go, which results file to write, the CLI's timeout
// default, the structured-output spec a run's judge call uses). It may change in any release,
// patch releases included; it is for @osharm packages only. User code imports `@osharm/judge`.
export { batchResultsPath } from './judge-tree';
export { resultsFileToWrite } from './previous-results';
export { DEFAULT_TRAJECTORY_TIMEOUT_MS } from './deadline';
export { JUDGMENT_OUTPUT } from './judgment-output';
