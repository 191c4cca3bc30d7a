/**
 * The native computer-use agent: an {@link AgentV1} whose model acts through its vendor's own
 * computer tool. Each `predict` is one model turn: the previous turn's calls are answered with how
 * their actions went and the new screenshot (downscaled to what the vendor accepts), the new calls
 * are mapped to pyautogui code in screen pixels (one action each, so each is a traj.jsonl step with
 * the screenshot after it), and `runTask` stops the batch at the first failed action.
 *
 * The step's `response` is the model's text followed by the step's actions as code blocks (what the
 * judge reads); `native.text` keeps the text alone.
 *
 * DONE / FAIL: a turn with no call ends the run — `DONE` for a final answer, `FAIL` for a refusal
 * the vendor marked (scored as upstream's FAIL) or a safety check under the `stop` / `refuse`
 * policies. Every step's `native` record keeps the vendor's raw response, text, reasoning, calls,
 * usage and the model id that served it. The accessibility tree the env observed is not sent to the
 * model (the vendors' tools see the screen) but is logged as the step's `a11y_tree`, as the prompt
 * agent logs it, for the judge and the report.
 */
import { tokensOf, usageRecord } from '@osharm/models';
import type { Action } from '@osharm/task-schema/trajectory';
import {
  computerUseVendor,
  createComputerUseSession,
  geminiEnvironment,
  geminiSafetyRecord,
  usageCost,
  type CallOutcome,
  type ComputerUseCall,
  type ComputerUseSession,
  type ComputerUseSettings,
  type ComputerUseTurn,
  type ComputerUseVendor,
  type GeminiSafetySettings,
  type SafetyCheckPolicy,
} from '@osharm/models';
import sharp from 'sharp';
import type { AgentPredictOptions, AgentPrediction, AgentRunParams, AgentV1 } from '../agent';
import type { A11yPlatform } from '../a11y-namespaces';
import { AgentObservationError } from '../agent-errors';
import { linearizedTreeOf } from '../offline-agents';
import { mapAnthropicToolUse } from './anthropic-actions';
import { GEMINI_BROWSER_ONLY, GEMINI_DESKTOP_FUNCTIONS, mapGeminiCall } from './gemini-actions';
import type { MappedAction } from './mapped-action';
import { mapOpenaiComputerCall } from './openai-actions';
import {
  PreparedScreenshot,
  bufferOf,
  modelScreenshot,
  observationAnswer,
  type ObservationRequest,
} from './native-observations';
import {
  ANTHROPIC_IMAGE_LIMITS,
  GEMINI_IMAGE_LIMITS,
  OPENAI_IMAGE_LIMITS,
  scalingFor,
  type Scaling,
} from './scaling';

export interface NativeAgentSettings {
  /** Model name, routed to its vendor by `@osharm/models`' router. */
  readonly model: string;
  /** `--computer-tool`: the tool version (default: by model). */
  readonly toolVersion?: string;
  /** `--safety-checks`. @default 'stop' */
  readonly safetyChecks?: SafetyCheckPolicy;
  /** A session factory (the scripted baseline, tests). @default createComputerUseSession */
  readonly createSession?: (model: string, settings: ComputerUseSettings) => ComputerUseSession;
  /** Settings passed to the session (keys, base URL, timeout, system prompt…). */
  readonly session?: Omit<ComputerUseSettings, 'display' | 'toolVersion' | 'gemini'>;
  /** Recorded as `params.platform`. @default 'ubuntu' */
  readonly platform?: string;
  /** Gemini: the computer-use tool's safety settings (recorded as `params.native.gemini_safety`). */
  readonly geminiSafety?: GeminiSafetySettings;
  /** The vendor whose calls the session gives (default: from the model name by the router; the scripted baseline names its own). */
  readonly vendor?: ComputerUseVendor;
}

const LIMITS = {
  anthropic: ANTHROPIC_IMAGE_LIMITS,
  openai: OPENAI_IMAGE_LIMITS,
  gemini: GEMINI_IMAGE_LIMITS,
} as const;

/** A vendor call → its mapped actions (an OpenAI GA call carries several). */
function mapCall(
  vendor: ComputerUseVendor,
  call: ComputerUseCall,
  scaling: Scaling,
): MappedAction[] {
  if (vendor === 'anthropic') return [mapAnthropicToolUse(call.raw as never, scaling)];
  if (vendor === 'gemini') return [mapGeminiCall(call.raw, scaling)];
  return mapOpenaiComputerCall(call.raw, scaling);
}

interface PendingCall {
  call: ComputerUseCall;
  /** A `cursor_position` or `zoom` of this call, answered on the next turn. */
  observe?: ObservationRequest;
  /** Index range of this call's actions among the step's actions sent to the env. */
  first: number;
  count: number;
  /** A mapping error of one of its actions (the batch stops there). */
  error?: string;
  acknowledge: boolean;
}

export class NativeAgent implements AgentV1 {
  readonly specificationVersion = 'agent-v1' as const;
  readonly observationType = 'screenshot' as const;
  readonly actionSpace = 'pyautogui' as const;
  readonly agentId: string;
  readonly vendor: ComputerUseVendor;
  private readonly runConfig: Record<string, unknown>;
  readonly params: AgentRunParams;
  private session: ComputerUseSession | undefined;
  private scaling: Scaling | undefined;
  private pending: PendingCall[] = [];

  constructor(private readonly settings: NativeAgentSettings) {
    this.agentId = settings.model;
    this.vendor = settings.vendor ?? computerUseVendor(settings.model);
    this.runConfig = {
      agent: 'native',
      vendor: this.vendor,
      tool_version: null,
      display: null,
      screen: null,
      scaling: this.vendor === 'gemini' ? 'normalized 0-999 grid' : null,
      safety_check_policy: settings.safetyChecks ?? 'stop',
      safety_checks_fired: 0,
      // turns whose screenshot was downscaled while the env observed (off the request path)
      prepared_screenshots: 0,
      // Gemini's safety settings change misuse and injection outcomes: recorded, vendor default as such
      ...(this.vendor === 'gemini' && { gemini_safety: geminiSafetyRecord(settings.geminiSafety) }),
    };
    this.params = {
      platform: settings.platform ?? 'ubuntu',
      model: settings.model,
      max_tokens: settings.session?.maxOutputTokens ?? 4096,
      top_p: 0,
      temperature: 0,
      action_space: 'pyautogui',
      observation_type: 'screenshot',
      max_trajectory_length: 0,
      a11y_tree_max_tokens: 0,
      // shared with better_log.json's params, so the counts there follow the run
      native: this.runConfig,
    };
  }

  reset(): void {
    this.session = undefined;
    this.scaling = undefined;
    this.pending = [];
    this.runConfig.safety_checks_fired = 0;
    this.runConfig.prepared_screenshots = 0;
  }

  /**
   * Gemini's tool: the desktop environment (its own OS-level actions) from Gemini 3.5 on; for the
   * earlier models the browser environment, its browser-only functions excluded and the desktop
   * actions it lacks declared as custom functions. Recorded as `params.native.environment`.
   */
  private geminiSettings(): NonNullable<ComputerUseSettings['gemini']> {
    const environment = geminiEnvironment(this.settings.model);
    this.runConfig.environment = environment;
    const safety = this.settings.geminiSafety;
    return environment === 'ENVIRONMENT_DESKTOP'
      ? { environment, ...(safety && { safety }) }
      : {
          environment,
          excludedFunctions: GEMINI_BROWSER_ONLY,
          functions: GEMINI_DESKTOP_FUNCTIONS,
          ...(safety && { safety }),
        };
  }

  /** The scaling of this task, from the first screenshot's size (recorded in the run config). */
  private async scalingOf(png: Buffer): Promise<Scaling> {
    if (this.scaling) return this.scaling;
    const { width, height } = await sharp(png).metadata();
    if (!width || !height)
      throw new AgentObservationError({ message: 'the screenshot has no size' });
    const scaling = scalingFor({ width, height }, LIMITS[this.vendor], this.vendor === 'gemini');
    this.scaling = scaling;
    Object.assign(this.runConfig, {
      screen: { ...scaling.screen },
      display: { ...scaling.image },
      ...(this.vendor !== 'gemini' && {
        scaling:
          scaling.image.width === width
            ? 'none'
            : `downscaled to ${scaling.image.width}x${scaling.image.height}`,
      }),
    });
    return scaling;
  }

  /**
   * The screenshot downscaled (and base64-encoded) for the vendor, ahead of `predict`: `runTask`
   * has the environment run this while it waits for the accessibility walk, so the downscale is off
   * the path from the observation to the model request. `predict` uses the result when the
   * observation carries it for the same screenshot; else it does the same work itself.
   */
  async prepareScreenshot(screenshot: Uint8Array): Promise<unknown> {
    const png = bufferOf(screenshot);
    const scaling = await this.scalingOf(png);
    return new PreparedScreenshot(screenshot, scaling, await modelScreenshot(png, scaling));
  }

  async predict(options: AgentPredictOptions): Promise<AgentPrediction> {
    const png = options.observation.screenshot;
    if (!png) throw new AgentObservationError({ message: 'the native agent needs a screenshot' });
    const buffer = bufferOf(png);
    const scaling = await this.scalingOf(buffer);
    const prepared = options.observation.preparedScreenshot;
    const ready =
      prepared instanceof PreparedScreenshot &&
      prepared.source === png &&
      prepared.scaling === scaling;
    if (ready)
      this.runConfig.prepared_screenshots = (this.runConfig.prepared_screenshots as number) + 1;
    const screenshot = ready ? prepared.screenshot : await modelScreenshot(buffer, scaling);
    let turn: ComputerUseTurn;
    if (!this.session) {
      const create = this.settings.createSession ?? createComputerUseSession;
      this.session = create(this.settings.model, {
        ...this.settings.session,
        display: scaling.image,
        ...(this.settings.toolVersion !== undefined && { toolVersion: this.settings.toolVersion }),
        ...(this.vendor === 'gemini' && { gemini: this.geminiSettings() }),
      });
      this.runConfig.tool_version = this.session.toolVersion;
      turn = await this.session.start(options.instruction, screenshot, options.abortSignal);
    } else {
      const outcomes = await this.outcomes(options, buffer, scaling);
      turn = await this.session.next(outcomes, screenshot, options.abortSignal);
    }
    const tree =
      options.observation.accessibilityTree === undefined ||
      options.observation.accessibilityTree === null
        ? null
        : linearizedTreeOf(
            options.observation,
            (this.settings.platform ?? 'ubuntu') as A11yPlatform,
          );
    return { ...this.stepOf(turn, scaling), linearizedTree: tree };
  }

  /**
   * How the previous turn's calls went, from the env's action outcomes; a `cursor_position` is
   * answered with the pointer position (in the model's coordinates), a `zoom` with the region cut
   * from the full-size screenshot — both as the screen is after the turn's actions.
   */
  private async outcomes(
    options: AgentPredictOptions,
    png: Buffer,
    scaling: Scaling,
  ): Promise<CallOutcome[]> {
    const previous = options.previousActions ?? [];
    const outcomes: CallOutcome[] = [];
    for (const { call, first, count, error, acknowledge, observe } of this.pending) {
      const results = previous.slice(first, first + count);
      const failed = results.find(result => result.status === 'failed');
      const skipped = results.some(result => result.status === 'skipped');
      let message =
        error ??
        (failed ? `the action failed: ${failed.error ?? 'error'}` : undefined) ??
        (skipped ? 'not run: an earlier action of this turn failed' : undefined);
      let answer: Pick<CallOutcome, 'text' | 'image'> = {};
      if (message === undefined && observe !== undefined) {
        try {
          answer = await observationAnswer(observe, options, png, scaling, LIMITS[this.vendor]);
        } catch (cause) {
          message = `${observe.kind}: ${(cause as Error).message}`;
        }
      }
      outcomes.push({
        callId: call.id,
        ...(message !== undefined ? { error: message } : answer),
        ...(acknowledge && { acknowledgeSafetyChecks: true }),
      });
    }
    return outcomes;
  }

  private stepOf(turn: ComputerUseTurn, scaling: Scaling): AgentPrediction {
    const policy = this.settings.safetyChecks ?? 'stop';
    const checks = turn.calls.flatMap(call => call.safetyChecks);
    if (checks.length > 0)
      this.runConfig.safety_checks_fired =
        (this.runConfig.safety_checks_fired as number) + checks.length;
    const actions: Action[] = [];
    const mappedRecord: unknown[] = [];
    this.pending = [];
    let outcome: 'actions' | 'done' | 'refusal' | 'safety-stop' | 'safety-refusal' = 'actions';
    if (turn.refusal !== undefined) outcome = 'refusal';
    else if (checks.length > 0 && policy !== 'acknowledge')
      outcome = policy === 'stop' ? 'safety-stop' : 'safety-refusal';
    else if (turn.calls.length === 0) outcome = 'done';
    if (outcome === 'actions') {
      let stopped = false;
      for (const call of turn.calls) {
        const pending: PendingCall = {
          call,
          first: actions.length,
          count: 0,
          acknowledge: call.safetyChecks.length > 0,
        };
        for (const mapped of mapCall(this.vendor, call, scaling)) {
          mappedRecord.push(
            'error' in mapped
              ? { name: mapped.name, error: mapped.error }
              : { name: mapped.name, code: mapped.code },
          );
          if (stopped) continue;
          if ('error' in mapped) {
            pending.error = mapped.error;
            stopped = true;
          } else if (mapped.code !== null) {
            actions.push(mapped.code);
            pending.count += 1;
          } else {
            const observe = mapped.actions.find(
              (action): action is ObservationRequest =>
                action.kind === 'cursor_position' || action.kind === 'zoom',
            );
            if (observe) pending.observe = observe;
          }
        }
        if (stopped && pending.error === undefined && pending.count === 0)
          pending.error = 'not run: an earlier action of this turn failed';
        this.pending.push(pending);
      }
    } else actions.push(outcome === 'done' ? 'DONE' : 'FAIL');
    const usage = tokensOf(turn.usage);
    return {
      response: renderedResponse(turn.text, actions),
      actions,
      usage,
      costUsd: usageCost(turn.modelId, usage),
      finishReason: turn.finishReason,
      request: null,
      linearizedTree: null,
      stopAtFailedAction: true,
      native: {
        outcome,
        model_id: turn.modelId,
        text: turn.text,
        ...(turn.reasoning !== undefined && { reasoning: turn.reasoning }),
        ...(turn.refusal !== undefined && { refusal: turn.refusal }),
        finish_reason: turn.finishReason,
        usage: usageRecord(usage),
        calls: turn.calls.map(call => ({
          id: call.id,
          raw: call.raw,
          safety_checks: call.safetyChecks,
        })),
        mapped: mappedRecord,
        ...(checks.length > 0 && { safety_checks: { policy, fired: checks.length } }),
        raw_response: turn.raw,
      },
    };
  }
}

/**
 * The step's `response` as the prompt agent's reads: the model's text, then the step's actions as
 * code blocks (pyautogui code in a `python` block, DONE / FAIL in a plain one) — the judge reads a
 * step's `response`, so it sees what a native agent did.
 */
function renderedResponse(text: string, actions: readonly Action[]): string {
  const blocks = actions.map(action =>
    action === 'DONE' || action === 'FAIL' || action === 'WAIT'
      ? `\`\`\`\n${action}\n\`\`\``
      : `\`\`\`python\n${String(action)}\n\`\`\``,
  );
  return [text, ...blocks].filter(part => part !== '').join('\n');
}

/** A native computer-use agent for a model name (`osharm run --agent native`). */
export function createNativeAgent(settings: NativeAgentSettings): NativeAgent {
  return new NativeAgent(settings);
}
