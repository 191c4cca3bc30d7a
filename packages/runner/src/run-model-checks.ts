import {
  checkModelAtStart,
  computerToolFor,
  lifecycleRecord,
  samplingRefusal,
  startCheckDay,
  type ModelLifecycleRecord,
  type ModelStartCheck,
} from '@osharm/models';
import { judgeTypeNeedsCaptions } from '@osharm/task-schema';
import { DEFAULT_CAPTION_MODEL } from '@osharm/judge';
import { isOfflineModel } from './agent-choice';
import { RunOptionsError, type RunContextIo, type RunFlags } from './run-options';

/** The model checks of a run, made before anything starts. */
export interface RunModelChecks {
  /** One line each: an end of life within 60 days, what was assumed for a model not in the table. */
  readonly notices: readonly string[];
  /** Each role's model lifecycle, for provenance (`run_summary.json`). */
  readonly lifecycle: Readonly<
    Partial<Record<'agent' | 'judge' | 'captioner', ModelLifecycleRecord>>
  >;
}

/**
 * Every model of a run against the capability table and the SDKs' retirement data: a retired model
 * stops the run (its end of life and the vendor's replacement in the message); sampling values
 * given explicitly (`given`: the options as passed, before defaults) and `--computer-tool` must be
 * ones the model accepts; the defaults are sent only where the table says the model takes them.
 * @throws {RunOptionsError} naming the flag and what the model accepts.
 */
export function runModelChecks(
  flags: RunFlags,
  given: { readonly temperature?: number; readonly topP?: number },
  io: RunContextIo,
): RunModelChecks {
  let today: Date;
  try {
    today = startCheckDay(io.env);
  } catch (error) {
    throw new RunOptionsError((error as Error).message);
  }
  const checks: ModelStartCheck[] = [];
  if (!isOfflineModel(flags.model)) checks.push(checkModelAtStart('agent', flags.model, today));
  if (flags.judgeModel !== 'none') {
    checks.push(checkModelAtStart('judge', flags.judgeModel, today));
    if (judgeTypeNeedsCaptions(flags.judgeType))
      checks.push(
        checkModelAtStart('captioner', flags.captionerModel ?? DEFAULT_CAPTION_MODEL, today),
      );
  }
  for (const check of checks) {
    if (check.refusal)
      throw new RunOptionsError(
        `${check.role === 'agent' ? '--model' : `--${check.role}-model`} ${check.model}: ${check.refusal}`,
      );
  }
  const agent = checks.find(check => check.role === 'agent');
  if (agent && flags.agent === 'native') {
    try {
      computerToolFor(agent.capabilities, flags.computerTool);
    } catch (error) {
      throw new RunOptionsError(
        `${flags.computerTool === undefined ? '--model' : '--computer-tool'}: ${(error as Error).message}`,
      );
    }
  }
  if (
    flags.geminiSafety !== undefined &&
    (agent?.capabilities.vendor !== 'gemini' || flags.agent !== 'native')
  )
    throw new RunOptionsError(
      '--gemini-disable-safety-policy / --gemini-prompt-injection-detection go with a Gemini model and --agent native',
    );
  if (agent && flags.agent !== 'native') {
    const refusal = samplingRefusal(agent.capabilities, given, {
      temperature: '--temperature',
      topP: '--top-p',
    });
    if (refusal) throw new RunOptionsError(refusal);
  }
  return {
    notices: checks.flatMap(check => check.notices),
    lifecycle: Object.fromEntries(
      checks.map(check => [check.role, lifecycleRecord(check.lifecycle)]),
    ),
  };
}
