import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runTask, type AgentV1, type RunInjection } from '@osharm/agent';
import type { DesktopEnv } from '@osharm/desktop-env';
import {
  collectEvidence,
  INJECTION_EVIDENCE_FILE,
  jailbreakInstruction,
  prepareInjection,
} from '@osharm/injection';
import { createJudgeModel, DEFAULT_CAPTION_MODEL, judgeTrajectory } from '@osharm/judge';
import { writeFileAtomic, type Judgment } from '@osharm/task-schema';
import type { CliIo } from './cli-io';
import type { RunFlags } from './run-flags';
import type { PlannedRun } from './run-plan';

/** What one run of `osharm run` ended with. */
export interface RunOutcome {
  readonly run: PlannedRun;
  readonly score: number | null;
  readonly judgment?: Judgment;
  readonly error?: string;
}

/**
 * One run: prepares its injection (if any), runs the task with the agent in the environment,
 * records the injection evidence, and judges the trajectory right after (upstream judges after
 * every task, also after an exception).
 */
export async function runOne(
  plannedRun: PlannedRun,
  context: {
    env: DesktopEnv;
    agent: AgentV1;
    flags: RunFlags;
    io: CliIo;
    workDir: string;
    judgeEnabled: boolean;
    at: (path: string) => string;
  },
): Promise<RunOutcome> {
  const { env, agent, flags } = context;
  const task = plannedRun.task.config;
  const instruction = flags.jailbreak ? jailbreakInstruction(task.instruction) : task.instruction;
  let injection: RunInjection | undefined;
  let probes: Awaited<ReturnType<typeof prepareInjection>>['evidence'] | undefined;
  if (plannedRun.injection) {
    const prepared = await prepareInjection({
      task,
      run: plannedRun.injection,
      baseDir: context.at(flags.testConfigBaseDir),
      workDir: join(context.workDir, plannedRun.label.replaceAll('/', '_')),
      environment: { kind: flags.provider },
    });
    injection = {
      injection: prepared.injection,
      steps: prepared.steps,
      assetRoot: prepared.assetRoot,
    };
    probes = prepared.evidence;
  }
  const result = await runTask({
    env,
    agent,
    task,
    domain: plannedRun.task.domain,
    resultDir: plannedRun.dir,
    instruction,
    jailbreak: flags.jailbreak === true,
    injection,
    maxSteps: flags.maxSteps,
    sleepAfterExecution: flags.sleepAfterExecution,
    settleSeconds: { afterSetup: flags.settle, afterInjection: flags.settle * 2 },
    timeLimitSeconds: flags.timeLimit,
    record: flags.recording !== false,
    beforeEvaluate: probes
      ? async ({ lastAction, steps }) => {
          const evidence = await collectEvidence({
            probes: probes!,
            runCommand: async shell => {
              const answer = await env.guest.execute(['/bin/bash', '-c', shell]);
              return { output: answer.output, returncode: answer.returncode };
            },
            trajectory: {
              lastAction: typeof lastAction === 'string' ? lastAction : undefined,
              steps: steps.length,
              actions: steps.flatMap(step =>
                step.actions.filter((action): action is string => typeof action === 'string'),
              ),
            },
          });
          await writeFileAtomic(
            join(plannedRun.dir, INJECTION_EVIDENCE_FILE),
            `${JSON.stringify(evidence, null, 2)}\n`,
          );
        }
      : undefined,
  });
  let judgment: Judgment | undefined;
  let error = result.error;
  // Upstream judges after every task, also after an exception.
  if (context.judgeEnabled && existsSync(join(plannedRun.dir, 'better_log.json'))) {
    const routing = { openai: { env: context.io.env }, anthropic: { env: context.io.env } };
    try {
      const judged = await judgeTrajectory({
        dir: plannedRun.dir,
        judgeType: flags.judgeType,
        promptVersion: flags.sysPromptVersion,
        model: createJudgeModel(flags.judgeModel, routing),
        captioner: createJudgeModel(DEFAULT_CAPTION_MODEL, routing),
        observationType: flags.observationType,
      });
      judgment = judged.judgment;
    } catch (caught) {
      error = `${error ? `${error}; ` : ''}judge: ${(caught as Error).message}`;
    }
  }
  return { run: plannedRun, score: result.score, judgment, error };
}
