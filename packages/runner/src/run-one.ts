import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  runTask,
  type AgentModelFailure,
  type AgentV1,
  type RunInjection,
  type RunTaskEvent,
} from '@osharm/agent';
import { connectionFailure, createModel, endpointRouting, redactor } from '@osharm/models';
import type { DesktopEnv, VmProviderV1 } from '@osharm/desktop-env';
import {
  collectEvidence,
  INJECTION_EVIDENCE_FILE,
  jailbreakInstruction,
  prepareInjection,
} from '@osharm/injection';
import { HarmObserver } from '@osharm/harm';
import { guestRequest } from '@osharm/desktop-guest';
import { DEFAULT_CAPTION_MODEL, judgeTrajectory } from '@osharm/judge';
import { writeFileAtomic, type FidelityRecord, type Judgment } from '@osharm/task-schema/artifacts';
import { OBSERVED_HARM_FILE, type RunUsage } from '@osharm/task-schema/trajectory';

import { isBundledProvider, type RunContextIo, type RunFlags } from './run-options';
import type { PlannedRun } from './run-plan';
import type { RunEndpoints } from './run-prechecks';
import { writeRunFidelity } from './run-fidelity';
import type { UpstreamTexts } from './upstream-texts';
import { isOfflineModel } from './agent-choice';
import { writeRunUsage, type RoleCalls } from './run-usage';

/** What one run of `osharm run` ended with. */
export interface RunOutcome {
  readonly run: PlannedRun;
  readonly score: number | null;
  readonly judgment?: Judgment;
  /** Why the run errored (its traj.jsonl error line): it has no score and is not judged. */
  readonly error?: string;
  /** Set when the run errored because the agent's model call failed after retries. */
  readonly modelFailure?: AgentModelFailure;
  /**
   * Set when the agent destroyed its desktop (task-schema's RunStatus
   * `environment_destroyed_by_agent`): no score, but judged and counted; `error` is absent.
   */
  readonly destroyedByAgent?: { readonly step: number; readonly reason: string };
  /** Why judging a finished run failed (the run keeps its score; judge it later). */
  readonly judgeError?: string;
  /** Set when judging failed because the judge or captioner endpoint could not be reached. */
  readonly judgeConnectionFailure?: ReturnType<typeof connectionFailure>;
  /** How the run's environment differed from upstream's (its fidelity.json); absent if unwritable. */
  readonly fidelity?: FidelityRecord;
  /** The run's tokens and cost per role, as written to its run_usage.json (absent if unwritable). */
  readonly usage?: RunUsage;
}

/** The desktop's shell as a local or container provider read it at start (`desktopShell()`). */
function providerShell(
  provider: VmProviderV1 | undefined,
): { name: 'gnome-shell' | 'openbox'; fallback: string | null } | undefined {
  const shell = provider?.desktopShell?.();
  return shell ? { name: shell.shell, fallback: shell.fallback } : undefined;
}

/**
 * One run: prepares its injection (if any), runs the task with the agent in the environment,
 * records the injection evidence, and judges the trajectory right after. Unlike upstream (which
 * judged after an exception too), a run that ended with an error is never judged: it has no
 * verdict to give, and a resumed batch runs it again.
 */
export async function runOne(
  plannedRun: PlannedRun,
  context: {
    env: DesktopEnv;
    /**
     * The environment's provider: its optional `sudoMode()` (container providers probe at start) goes
     * into fidelity.json.
     */
    provider?: VmProviderV1;
    agent: AgentV1;
    flags: RunFlags;
    io: Pick<RunContextIo, 'env'>;
    workDir: string;
    /** Where the judge and captioner are called; no `judge`: no inline judging. */
    endpoints: RunEndpoints;
    at: (path: string) => string;
    /** Aborts the run (it ends as an error: no result.txt, run again on resume). */
    signal?: AbortSignal;
    /** `--upstream`: the jailbreak, goal texts and vector templates are upstream's. */
    upstream?: UpstreamTexts;
    /** The run's own progress (reset, each step). */
    onEvent?: (event: RunTaskEvent) => void;
  },
): Promise<RunOutcome> {
  const { env, agent, flags } = context;
  const task = plannedRun.task.config;
  const upstream = context.upstream?.injection;
  const instruction = flags.jailbreak
    ? (upstream?.jailbreak ?? jailbreakInstruction)(task.instruction)
    : task.instruction;
  let injection: RunInjection | undefined;
  let probes: Awaited<ReturnType<typeof prepareInjection>>['evidence'] | undefined;
  let placement: Awaited<ReturnType<typeof prepareInjection>>['placement'] | undefined;
  if (plannedRun.injection) {
    const prepared = await prepareInjection({
      task,
      run: plannedRun.injection,
      baseDir: context.at(flags.testConfigBaseDir),
      workDir: join(context.workDir, plannedRun.label.replaceAll('/', '_')),
      // The container image is the embedded desktop's package set, offline too.
      environment: { kind: flags.provider === 'vmware' ? 'vmware' : 'local' },
      ...(upstream && { texts: upstream.goalTexts, templates: upstream.templates }),
    });
    injection = {
      injection: prepared.injection,
      steps: prepared.steps,
      assetRoot: prepared.assetRoot,
    };
    probes = prepared.evidence;
    placement = prepared.placement;
  }
  const harm = flags.observeHarm === false ? undefined : harmObserver(env, task, plannedRun.dir);
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
    redact: redactor(context.io.env),
    record: flags.recording !== false,
    abortSignal: context.signal,
    onEvent: context.onEvent,
    ...(harm ? { observer: harm } : {}),
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
  // A run that errored mid-step: one more mark records what its last actions did (or, when the
  // desktop is gone, that the observer did not answer: the record says degraded).
  if (harm && result.error !== undefined && result.steps > 0) await harm.mark(result.steps);
  await harm?.write();
  // A provider the caller built has no known fidelity facts: no record, never counted faithful.
  const fidelity = isBundledProvider(flags.provider)
    ? await writeRunFidelity(plannedRun, {
        provider: flags.provider,
        injectionSteps: injection?.steps,
        placement,
        network: flags.network === true,
        sudo: context.provider?.sudoMode?.(),
        prompts: context.upstream?.provenance ?? agent.params.osharm_prompts,
        shell: providerShell(context.provider),
      }).catch(() => undefined)
    : undefined;
  const agentCalls: RoleCalls = {
    model: agent.params.model,
    // an offline baseline answers in-process: no model call, nothing billed (cost 0, not unknown)
    calls: isOfflineModel(flags.model) ? 0 : result.agentUsage.calls,
    usage: result.agentUsage.usage,
    ...(result.modelFailure &&
      mayHaveBeenBilled(result.modelFailure) && {
        failed: `a model call failed after it may have been billed (${result.modelFailure.name})`,
      }),
  };
  let usage = await writeRunUsage(plannedRun.dir, { agent: agentCalls }).catch(() => undefined);
  const destroyedByAgent =
    result.destroyedAtStep !== undefined && result.error !== undefined
      ? { step: result.destroyedAtStep, reason: result.error }
      : undefined;
  if (result.error !== undefined && !destroyedByAgent) {
    return {
      run: plannedRun,
      fidelity,
      ...(usage && { usage }),
      score: null,
      error: result.error,
      ...(result.modelFailure ? { modelFailure: result.modelFailure } : {}),
    };
  }
  const { judge, captioner } = context.endpoints;
  const counted = {
    run: plannedRun,
    fidelity,
    ...(usage && { usage }),
    score: result.score,
    ...(destroyedByAgent && { destroyedByAgent }),
  };
  if (!judge || !existsSync(join(plannedRun.dir, 'better_log.json'))) return counted;
  const captionerModel = flags.captionerModel ?? DEFAULT_CAPTION_MODEL;
  const zero = { inputTokens: 0, outputTokens: 0 };
  try {
    const judged = await judgeTrajectory({
      dir: plannedRun.dir,
      judgeType: flags.judgeType,
      promptVersion: flags.sysPromptVersion,
      model: createModel(flags.judgeModel, endpointRouting(judge, context.io.env)),
      captioner: createModel(captionerModel, endpointRouting(captioner ?? judge, context.io.env)),
      // The observation type is the run's own, read by the judge from what the run wrote.
      // --upstream: the judge's prompts and layout are upstream's too.
      ...(context.upstream && { upstream: context.upstream.root }),
    });
    usage = await writeRunUsage(plannedRun.dir, {
      agent: agentCalls,
      judge: {
        model: flags.judgeModel,
        calls: judged.usage.calls - judged.usage.captionCalls,
        usage: judged.usage.judge,
      },
      ...(captioner && {
        captioner: {
          model: captionerModel,
          calls: judged.usage.captionCalls,
          usage: judged.usage.captioner,
        },
      }),
    }).catch(() => usage);
    return { ...counted, ...(usage && { usage }), judgment: judged.judgment };
  } catch (caught) {
    const unreachable = connectionFailure(caught);
    // A judging that failed made calls whose tokens are not known: the judge's cost is unknown.
    const failed = 'judging failed: its calls are not counted';
    usage = await writeRunUsage(plannedRun.dir, {
      agent: agentCalls,
      judge: { model: flags.judgeModel, calls: 0, usage: zero, failed },
      ...(captioner && { captioner: { model: captionerModel, calls: 0, usage: zero, failed } }),
    }).catch(() => usage);
    return {
      ...counted,
      ...(usage && { usage }),
      judgeError: redactor(context.io.env)((caught as Error).message ?? String(caught)),
      ...(unreachable ? { judgeConnectionFailure: unreachable } : {}),
    };
  }
}

/**
 * Whether a failed agent call may still have been billed: no answer came back after the request was
 * sent (a timeout, a dropped connection, an unknown failure). A refused connection, a DNS failure,
 * an HTTP error answer or a missing key bill nothing.
 */
function mayHaveBeenBilled(failure: AgentModelFailure): boolean {
  if (failure.kind === 'timeout' || failure.kind === 'other' || failure.kind === undefined)
    return true;
  return (
    failure.kind === 'connection' &&
    !['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(failure.code ?? '')
  );
}

/**
 * The harm observer of one run, talking to the desktop's guest server over its own channel;
 * observed_harm.json is rewritten after each step (a run cut short keeps what was seen).
 */
function harmObserver(env: DesktopEnv, task: PlannedRun['task']['config'], dir: string) {
  // The guest exists once the run's reset() started the desktop: looked up at each call.
  const observer = new HarmObserver({
    task,
    request: async (path, body) => {
      const answer = await guestRequest(env.guest.endpoint, path, {
        method: 'POST',
        json: body,
        timeoutMs: 60_000,
        maxBytes: 64 * 1024 * 1024,
      });
      let json: unknown;
      try {
        json = JSON.parse(answer.body.toString('utf8'));
      } catch {
        json = undefined;
      }
      return { status: answer.status, json };
    },
  });
  const write = () =>
    writeFileAtomic(
      join(dir, OBSERVED_HARM_FILE),
      `${JSON.stringify(observer.record(), null, 2)}\n`,
    ).catch(() => undefined);
  return {
    baseline: async () => {
      await observer.baseline();
      await write();
    },
    mark: async (step: number) => {
      await observer.mark(step);
      await write();
    },
    write,
  };
}
