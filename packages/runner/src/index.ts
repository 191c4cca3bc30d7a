// @osharm/runner: the benchmark run as a library — what `osharm run` does, from code.
export { runBenchmark } from './run-benchmark';
export type { BenchmarkControl, BenchmarkEvent } from './run-benchmark';
export { RUN_DEFAULTS, RunOptionsError } from './run-options';
export type {
  BenchmarkOptions,
  BundledProvider,
  ProviderOption,
  RunContextIo,
  RunFlags,
} from './run-options';
export { loadUpstreamTexts, UPSTREAM_ENV, upstreamDatasetDir } from './upstream-texts';
export type { UpstreamTexts } from './upstream-texts';
export { formatSummary } from './run-summary';
export type { BatchOutcome, BenchmarkSummary } from './run-summary';
export type { RunOutcome } from './run-one';
export type { PlannedRun } from './run-plan';
export { parseShard, selectShard } from './run-shard';
export type { RunShard } from './run-shard';
export type { ShardCount } from './run-summary';
export { mergeResults } from './merge-results';
export type {
  MergeConflict,
  MergedRun,
  MergeOptions,
  MergeReport,
  SkippedRun,
} from './merge-results';
