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
  provider: 'local' | 'vmware';
  numEnvs: number;
  task?: string[];
  limit?: number;
  timeLimit: number;
  settle: number;
}
