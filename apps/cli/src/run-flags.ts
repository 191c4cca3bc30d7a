import type { ActionSpace, JudgeType, ObservationType, PromptVersion } from '@osharm/task-schema';
import type { AssetFlags } from './asset-options';

/** The parsed flags of `osharm run` (upstream's run.py flags, kebab-case, plus osharm's). */
export interface RunFlags extends AssetFlags {
  pathToVm: string;
  headless?: boolean;
  actionSpace: ActionSpace;
  observationType: ObservationType;
  screenWidth: number;
  screenHeight: number;
  /** Local desktop limits (provider defaults when absent). */
  memory?: number;
  pids?: number;
  cpus?: number;
  sleepAfterExecution: number;
  maxSteps: number;
  maxTrajectoryLength: number;
  testConfigBaseDir: string;
  model: string;
  judgeModel: string;
  sysPromptVersion: PromptVersion;
  judgeType: JudgeType;
  temperature: number;
  topP: number;
  maxTokens: number;
  stopToken?: string;
  domain: string;
  testAllMetaPath: string;
  jailbreak?: boolean;
  inject?: boolean;
  resultDir: string;
  provider: 'local' | 'vmware' | 'podman' | 'docker';
  /** podman / docker: the desktop image. */
  image?: string;
  /** podman / docker: a network with a route out. */
  network?: boolean;
  /** Absent: the local provider's suggestion for this machine (1 for vmware). */
  numEnvs?: number;
  /** `--no-recording` sets false. */
  recording?: boolean;
  recordingFps?: number;
  task?: string[];
  limit?: number;
  timeLimit: number;
  settle: number;
  /** Agent model base URL (`--base-url`). */
  baseUrl?: string;
  judgeBaseUrl?: string;
  captionerModel?: string;
  captionerBaseUrl?: string;
  /** SDK retries per model request, every role. */
  maxRetries?: number;
  /** Per model request timeout in seconds, every role. */
  timeout?: number;
  /** `prompt` (upstream's agent) or `native` (the vendor's own computer-use tool). @default 'prompt' */
  agent: 'prompt' | 'native';
  /** Native agents: the computer tool version (default: by model). */
  computerTool?: string;
  /** Native agents: what a vendor safety check does. @default 'stop' */
  safetyChecks: 'acknowledge' | 'stop' | 'refuse';
  /** Exit 1 when any run errored. @default true */
  failOnError: boolean;
}
