import {
  createNativeAgent,
  createScriptedSession,
  readNativeScriptSync,
  type SafetyCheckPolicy,
} from '@osharm/agent/native';
import {
  createPromptAgent,
  createRefusingAgent,
  createReplayAgent,
  type AgentPrompts,
  type AgentV1,
} from '@osharm/agent';
import type { PromptProvenance } from '@osharm/task-schema';
import {
  createModel,
  endpointRouting,
  type GeminiSafetySettings,
  type ModelEndpoint,
} from '@osharm/models';
import type { ActionSpace, ObservationType } from '@osharm/task-schema';

/** True for the offline baselines. */
export function isOfflineModel(model: string): boolean {
  return (
    model === 'offline-refuse' ||
    model.startsWith('offline-replay:') ||
    model.startsWith('offline-native:')
  );
}

/** The model dir of a run: `{model}`, or `{model}_native` for the native agent. */
export function agentModelDir(model: string, agent: 'prompt' | 'native'): string {
  const dir = modelDirName(model);
  return agent === 'native' ? `${dir}_native` : dir;
}

/**
 * The directory a model's results go under (`offline-replay:<dir>` → `offline-replay`). A `/` in
 * the name nests dirs as upstream's `os.path.join` does (`Qwen/Qwen2.5-VL-72B-Instruct`), so both
 * tools find each other's runs; a name with an empty, `.` or `..` part, a `\` or a control
 * character is refused (it would leave the result dir or name no dir).
 * @throws {Error} for such a name.
 */
export function modelDirName(model: string): string {
  if (model.startsWith('offline-replay:')) return 'offline-replay';
  if (model.startsWith('offline-native:')) return 'offline-native';
  const parts = model.split('/');
  const unusable = (part: string) =>
    part === '' ||
    part === '.' ||
    part === '..' ||
    [...part].some(char => char === '\\' || char.charCodeAt(0) < 0x20);
  if (parts.some(unusable)) throw new Error(`--model "${model}": not usable as a result dir name`);
  return model;
}

/** Creates the agent for one environment worker (each worker has its own history). */
export function createAgent(options: {
  model: string;
  observationType: ObservationType;
  actionSpace: ActionSpace;
  maxTrajectoryLength: number;
  maxTokens: number;
  temperature: number;
  topP: number;
  stopToken: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  /** Where the model is called (base URL, retries, timeout); from `runEndpoints`. */
  endpoint?: ModelEndpoint;
  /** @default 'prompt' */
  agent?: 'prompt' | 'native';
  computerTool?: string;
  safetyChecks?: SafetyCheckPolicy;
  geminiSafety?: GeminiSafetySettings;
  /** The prompt agent's words and their provenance (`--upstream`); default osharm's. */
  prompts?: { readonly agentPrompts: AgentPrompts; readonly provenance: PromptProvenance };
}): AgentV1 {
  if (options.agent === 'native') return createNative(options);
  if (options.model.startsWith('offline-native:'))
    throw new Error(`--model ${options.model} is a native script: use it with --agent native`);
  if (options.model === 'offline-refuse') {
    return createRefusingAgent({
      observationType: options.observationType,
      actionSpace: options.actionSpace,
    });
  }
  if (options.model.startsWith('offline-replay:')) {
    return createReplayAgent({
      trajectoryDir: options.model.slice('offline-replay:'.length),
      observationType: options.observationType,
      actionSpace: options.actionSpace,
    });
  }
  return createPromptAgent({
    model: createModel(
      options.model,
      options.endpoint
        ? endpointRouting(options.endpoint, options.env)
        : { openai: { env: options.env }, anthropic: { env: options.env } },
    ),
    observationType: options.observationType,
    actionSpace: options.actionSpace,
    maxTrajectoryLength: options.maxTrajectoryLength,
    maxTokens: options.maxTokens,
    temperature: options.temperature,
    topP: options.topP,
    stopToken: options.stopToken,
    ...(options.prompts && {
      prompts: options.prompts.agentPrompts,
      provenance: options.prompts.provenance,
    }),
  });
}

/** How to switch from an offline baseline to a real model, printed after offline runs. */
export const REAL_MODEL_HINT = `This was an offline baseline, not a model. To evaluate a real agent:
  ./osharm models check --model gpt-5.5 --judge-model gpt-5.5      (first: one live call per role)
  OPENAI_API_KEY=… ./osharm run --model gpt-5.5 …                 (OpenAI)
  ANTHROPIC_API_KEY=… ./osharm run --model claude-opus-4-7 …      (Anthropic)
  OPENAI_BASE_URL=http://127.0.0.1:8000/v1 ./osharm run --model <served model> …  (vLLM, Ollama: any OpenAI-compatible server)
and judge with --judge-model gpt-5.5 (or any claude-* / OpenAI-compatible model).`;

/** The native computer-use agent (`--agent native`), or the scripted native baseline (`offline-native:<file>`). */
function createNative(options: Parameters<typeof createAgent>[0]): AgentV1 {
  const policy = { safetyChecks: options.safetyChecks ?? 'stop' } as const;
  if (options.model.startsWith('offline-native:')) {
    const script = readNativeScriptSync(options.model.slice('offline-native:'.length));
    return createNativeAgent({
      model: 'offline-native',
      vendor: script.vendor,
      ...policy,
      createSession: () => createScriptedSession(script, options.computerTool ?? 'scripted'),
    });
  }
  // The endpoint's vendor is the session's (both from @osharm/models' router), so its base URL
  // (GEMINI_BASE_URL for a Gemini name, never OPENAI_BASE_URL) is this model's.
  const endpoint = options.endpoint;
  return createNativeAgent({
    model: options.model,
    ...policy,
    ...(options.computerTool !== undefined && { toolVersion: options.computerTool }),
    ...(options.geminiSafety !== undefined && { geminiSafety: options.geminiSafety }),
    session: {
      env: options.env,
      ...(endpoint?.baseURL !== undefined && { baseURL: endpoint.baseURL }),
      ...(endpoint && { maxRetries: endpoint.maxRetries, timeout: endpoint.timeoutMs }),
    },
  });
}
