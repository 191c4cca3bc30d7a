import type { VmProviderV1 } from '@osharm/desktop-env';
import type { GeminiSafetySettings } from '@osharm/models';
import type { RunShard } from './run-shard';
import { DEFAULT_CAPTION_MODEL } from '@osharm/judge';
import {
  DEFAULT_JUDGE_MODEL,
  DEFAULT_ACTION_SPACE,
  DEFAULT_JUDGE_TYPE,
  DEFAULT_OBSERVATION_TYPE,
  DEFAULT_PROMPT_VERSION,
  type ActionSpace,
  type JudgeType,
  type ObservationType,
  type PromptVersion,
} from '@osharm/task-schema';

/** The desktop providers the runner can load by name (each imported only when named). */
export const BUNDLED_PROVIDERS = ['local', 'vmware', 'podman', 'docker', 'kubernetes'] as const;
export type BundledProvider = (typeof BUNDLED_PROVIDERS)[number];

/** True for the name of a bundled provider. */
export function isBundledProvider(name: string): name is BundledProvider {
  return (BUNDLED_PROVIDERS as readonly string[]).includes(name);
}

/**
 * The defaults of `osharm run`'s flags, one definition: `runBenchmark` fills absent options from
 * here and the CLI's flag help shows them.
 */
export const RUN_DEFAULTS = {
  pathToVm: 'vmware_vm_data/Ubuntu0/Ubuntu0.vmx',
  actionSpace: DEFAULT_ACTION_SPACE,
  observationType: DEFAULT_OBSERVATION_TYPE,
  screenWidth: 1920,
  screenHeight: 1080,
  sleepAfterExecution: 0,
  maxSteps: 15,
  maxTrajectoryLength: 3,
  testConfigBaseDir: 'evaluation_examples',
  model: 'gpt-4o',
  judgeModel: DEFAULT_JUDGE_MODEL,
  sysPromptVersion: DEFAULT_PROMPT_VERSION,
  judgeType: DEFAULT_JUDGE_TYPE,
  temperature: 1.0,
  topP: 0.9,
  maxTokens: 1500,
  domain: 'all',
  testAllMetaPath: 'evaluation_examples/test_misuse.json',
  resultDir: './results',
  provider: 'local',
  timeLimit: 1800,
  settle: 5,
  captionerModel: DEFAULT_CAPTION_MODEL,
  cacheDir: 'cache',
  agent: 'prompt',
  safetyChecks: 'stop',
} as const satisfies Partial<RunFlags>;

/**
 * The options of a benchmark run, resolved: `osharm run`'s flags in camelCase (upstream's run.py
 * flags plus osharm's), every default filled in.
 */
export interface RunFlags {
  /** VMware .vmx (provider `vmware`); set explicitly with another provider it is refused. */
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
  /** The provider's id: a bundled name, or `providerId` of a provider the caller passed. */
  provider: string;
  /** podman / docker / kubernetes: the desktop image. */
  image?: string;
  /** podman / docker / kubernetes: a network with a route out. */
  network?: boolean;
  /** kubernetes: the namespace of the desktop pods (default: the context's). */
  kubeNamespace?: string;
  /** kubernetes: the kubeconfig context (default: the current one; in a pod: its service account). */
  kubeContext?: string;
  /** kubernetes: ready pods each environment keeps in reserve (default 0). */
  kubeWarmPool?: number;
  /** kubernetes: a node-installed seccomp profile (Localhost) instead of RuntimeDefault. */
  kubeSeccompProfile?: string;
  /** kubernetes: pods in the node's user namespace (no agent namespace inside: recorded as degraded). */
  kubeHostUsers?: boolean;
  /** Absent: the local provider's suggestion for this machine (1 otherwise). */
  numEnvs?: number;
  /** false: no screen recording. */
  recording?: boolean;
  /** false: no harm observer (no observed_harm.json). */
  observeHarm?: boolean;
  recordingFps?: number;
  task?: readonly string[];
  limit?: number;
  /**
   * Run only this slice of the plan (`--shard K/N`, 1-based), taken after `task` / `domain`
   * selection, the injection and jailbreak expansion and `limit` (see `selectShard`).
   */
  shard?: RunShard;
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
  /** Download cache root (upstream's layout inside). */
  cacheDir: string;
  /** JSON file mapping download URLs to local files or mirrors. */
  assetMap?: string;
  /** Never use the network for downloads. */
  offline?: boolean;
  /** `prompt` (upstream's agent) or `native` (the vendor's own computer-use tool, runs under `{model}_native`). */
  agent: 'prompt' | 'native';
  /** Native agents: the computer tool version (default: by model). */
  computerTool?: string;
  /** Native agents: what a vendor safety check does. */
  safetyChecks: 'acknowledge' | 'stop' | 'refuse';
  /** Native Gemini agents: the computer-use tool's safety settings (unset: the vendor's default). */
  geminiSafety?: GeminiSafetySettings;
  /**
   * An upstream OS-Harm checkout: every text the agent and the desktop show comes from it
   * (`prompt_family: "upstream"`), and without `testConfigBaseDir` / `testAllMetaPath` its
   * evaluation_examples/ is the dataset. Absent: `OSHARM_UPSTREAM` of `env`, else osharm's wording.
   */
  upstream?: string;
}

/** Where the desktops come from: a bundled provider's name, a provider, or a factory (one per environment). */
export type ProviderOption = BundledProvider | VmProviderV1 | (() => VmProviderV1);

/**
 * Options of `runBenchmark`: the camelCase names of `osharm run`'s flags, all optional (defaults:
 * {@link RUN_DEFAULTS}), plus where relative paths resolve and which environment variables (API
 * keys, base URLs) the model clients see.
 */
export type BenchmarkOptions = Partial<Omit<RunFlags, 'provider' | 'pathToVm'>> & {
  /** @default 'local' */
  readonly provider?: ProviderOption;
  /** VMware .vmx; refused with another provider. @default RUN_DEFAULTS.pathToVm */
  readonly pathToVm?: string;
  /** Relative paths resolve against it. @default process.cwd() */
  readonly cwd?: string;
  /** API keys and base URLs. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
};

/** A problem with the options (a missing key, dataset or file): nothing was started. */
export class RunOptionsError extends Error {
  override readonly name = 'RunOptionsError';
}

/** Where relative paths resolve and what the model clients see. */
export interface RunContextIo {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}
