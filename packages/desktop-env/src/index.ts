// @osharm/desktop-env: the provider-neutral OSWorld environment.

// provider contract
export type {
  GuestEndpoint,
  ProviderCallOptions,
  ProviderDesktopShell,
  ProviderShellName,
  ProviderSudoMode,
  VmProviderV1,
} from './vm-provider';
export { GuestRequestError, VmProviderError } from './desktop-env-errors';

// guest protocol
export type {
  AccessibilityAnswer,
  DirectoryTree,
  ExecuteResult,
  GuestCallOptions,
  GuestClient,
  RunBashResult,
  RunPythonResult,
} from './guest-client';

export { VERSION } from './version';

// guest protocol client (undici)
export { UndiciGuestClient, createGuestClient } from './guest-client-undici';
export {
  DEFAULT_DOWNLOAD_LIMIT_BYTES,
  DEFAULT_GUEST_ANSWER_LIMITS,
  DEFAULT_GUEST_TIMEOUTS_MS,
} from './guest-transport';
export type {
  DownloadResult,
  GuestClientEvent,
  GuestClientSettings,
  GuestOperation,
} from './guest-transport';
export { tunnelToGuestPort } from './guest-tunnel';
export type { GuestAddress } from './guest-tunnel';
export type { ExecuteVerification, ExecuteWithVerificationResult } from './guest-client';

// readiness: wait for a window instead of a fixed sleep
export { waitForWindow } from './window-readiness';
export type { WindowWait, WindowWaitOptions } from './window-readiness';

// setup steps (task config / evaluator postconfig)
export { runSetup } from './setup-runner';
export type {
  SetupContext,
  SetupLogEntry,
  SetupRunRecord,
  SetupRunnerSettings,
  SetupStepEvent,
  SetupStepRecord,
  SetupWarning,
} from './setup-context';
export type { SetupDownloadRecord } from './setup-transfer';
export type { SetupWindowWait } from './setup-window-waits';
export { assetSourcesFetch, loadAssetMap, parseAssetMap } from './asset-map';
export type { AssetMap, AssetSources, AssetTarget } from './asset-map';
export { listTaskDownloads } from './task-downloads';
export type { TaskDownload } from './task-downloads';
export { ASSET_MANIFEST_FILE, pullAssets } from './pull-assets';
export type {
  AssetManifest,
  AssetManifestEntry,
  PullAssetsEvent,
  PullAssetsOptions,
} from './pull-assets';
export { SetupStepError } from './setup-step-error';
export { substituteSetupPlaceholders } from './setup-placeholders';
export type { SetupPlaceholderValues } from './setup-placeholders';
export {
  NAMESPACE_URL,
  downloadCachePath,
  ensureDownloadCached,
  OfflineCacheMissError,
  uuid5,
} from './download-cache';
export type { DownloadCacheResult, DownloadOptions } from './download-cache';
export { closeChromeTabs, compareUrls, openChromeTabs } from './chrome-tabs';
export type { ChromeTabsOptions, OpenChromeTabsResult } from './chrome-tabs';

// the evaluator contract (the evaluators themselves: @osharm/evaluators)
export type {
  EvaluationIssue,
  EvaluationResult,
  MetricScore,
  RunSetupSteps,
  TaskEvaluationInput,
  TaskEvaluator,
} from './evaluator-contract';

// the environment
export { createDesktopEnv, DesktopEnv } from './desktop-env';
export type {
  DesktopEnvSettings,
  EnvAction,
  Observation,
  ObserveOptions,
  ObservationQuality,
  StepResult,
} from './desktop-env';
export type { Computer13Action } from './computer-13';
