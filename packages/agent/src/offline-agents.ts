import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  DEFAULT_ACTION_SPACE,
  PUBLISHED_RUNS_OBSERVATION_TYPE,
  TaskValidationError,
  type ActionSpace,
  type ObservationType,
} from '@osharm/task-schema';
import { fromZodIssues, parseJsonText } from '@osharm/task-schema/internal';
import { betterLogSchema, type Action, type BetterLog } from '@osharm/task-schema/trajectory';
import { linearizeAccessibilityTree } from './a11y-linearize';
import type { A11yPlatform } from './a11y-namespaces';
import { parseAccessibilityTree } from './a11y-xml';
import { AgentSettingError } from './agent-errors';
import type {
  AgentObservation,
  AgentPredictOptions,
  AgentPrediction,
  AgentRunParams,
  AgentV1,
} from './agent';
import { isSpecialAction, parseActions } from './parse-actions';
import { tagPrelude, tagScreenshot, type SomMark } from './som-tag';

/** Settings shared by the offline baselines. */
interface OfflineAgentSettings {
  /** How responses are parsed (replay) and what `params` reports. @default 'pyautogui' */
  readonly actionSpace?: ActionSpace;
  /** What `params` reports; `som` makes a replay add the current marks. @default `PUBLISHED_RUNS_OBSERVATION_TYPE` (`screenshot_a11y_tree`) */
  readonly observationType?: ObservationType;
  /** Platform of the accessibility XML (for the logged table). @default 'ubuntu' */
  readonly platform?: A11yPlatform;
}

const NO_USAGE = { inputTokens: 0, outputTokens: 0 };

function offlineParams(
  agentId: string,
  actionSpace: ActionSpace,
  observationType: ObservationType,
  platform: A11yPlatform,
): AgentRunParams {
  return {
    platform,
    model: agentId,
    max_tokens: 0,
    top_p: 0,
    temperature: 0,
    action_space: actionSpace,
    observation_type: observationType,
    max_trajectory_length: 0,
    a11y_tree_max_tokens: 0,
  };
}

/** The untrimmed table for `better_log.json`, as a model agent logs it. */
export function linearizedTreeOf(
  observation: AgentObservation,
  platform: A11yPlatform,
): string | null {
  const xml = observation.accessibilityTree;
  return xml === null || xml === undefined
    ? null
    : linearizeAccessibilityTree(parseAccessibilityTree(xml), { platform });
}

function offlinePrediction(
  response: string,
  actions: Action[] | null,
  linearizedTree: string | null,
  som?: { taggedScreenshot: Buffer; marks: SomMark[] },
): AgentPrediction {
  return {
    response,
    actions,
    usage: NO_USAGE,
    costUsd: 0,
    finishReason: null,
    request: null,
    linearizedTree,
    ...(som ?? {}),
  };
}

/** The answer of {@link createRefusingAgent}: a labelled refusal and FAIL. */
export const REFUSING_AGENT_RESPONSE =
  '[offline baseline, not a model] This baseline declines every task without looking at it.\n```\nFAIL\n```';

/** Settings of {@link createRefusingAgent}. */
export type RefusingAgentSettings = OfflineAgentSettings;

/**
 * An offline baseline, **not a model**: at every step it answers {@link REFUSING_AGENT_RESPONSE},
 * whose action is `FAIL`, so a run ends after one step. It needs no API key, which lets a fresh
 * machine run the whole pipeline (env, judge, metrics) end to end; its agentId
 * `offline-refusing-baseline` marks the results.
 */
export function createRefusingAgent(settings: RefusingAgentSettings = {}): AgentV1 {
  const agentId = 'offline-refusing-baseline';
  const actionSpace = settings.actionSpace ?? DEFAULT_ACTION_SPACE;
  const observationType = settings.observationType ?? PUBLISHED_RUNS_OBSERVATION_TYPE;
  const platform = settings.platform ?? 'ubuntu';
  return {
    specificationVersion: 'agent-v1',
    agentId,
    actionSpace,
    observationType,
    params: offlineParams(agentId, actionSpace, observationType, platform),
    reset() {},
    async predict({ observation, abortSignal }: AgentPredictOptions) {
      abortSignal?.throwIfAborted();
      return offlinePrediction(
        REFUSING_AGENT_RESPONSE,
        ['FAIL'],
        linearizedTreeOf(observation, platform),
      );
    },
  };
}

/** The answer of a replay whose recorded responses are used up. */
export const REPLAY_END_RESPONSE =
  '[offline replay, not a model] The recorded responses are used up.\n```\nDONE\n```';

/** Settings of {@link createReplayAgent}: a trajectory dir or the responses themselves. */
export interface ReplayAgentSettings extends OfflineAgentSettings {
  /** A recorded run's dir: its `better_log.json` `steps[].response` are replayed. */
  readonly trajectoryDir?: string;
  /** The responses to replay, in order (instead of a trajectory dir). */
  readonly responses?: readonly string[];
  /**
   * `reparse` (default): parse each response again with osharm's parser (as a live run would).
   * `recorded`: use the recording's `actions` as logged (trajectory dirs only).
   */
  readonly actions?: 'reparse' | 'recorded';
}

/**
 * An offline baseline, **not a model**: replays the raw responses of a recorded run step by step,
 * then answers DONE. Responses are parsed again for the action space (for `som`, with the marks of
 * the *current* screenshot), unless `actions: 'recorded'`. `reset()` starts the replay over.
 * Reads `better_log.json` at the first `predict`, not at construction.
 * @throws {AgentSettingError} when neither or both of `trajectoryDir` and `responses` are given.
 */
export function createReplayAgent(settings: ReplayAgentSettings): AgentV1 {
  if ((settings.trajectoryDir === undefined) === (settings.responses === undefined))
    throw new AgentSettingError({
      message: 'createReplayAgent needs exactly one of trajectoryDir and responses',
    });
  if (settings.actions === 'recorded' && settings.trajectoryDir === undefined)
    throw new AgentSettingError({
      message:
        'actions: "recorded" needs a trajectoryDir (plain responses have no recorded actions)',
    });
  const agentId = 'offline-replay';
  const platform = settings.platform ?? 'ubuntu';
  let recording: Promise<readonly RecordedStep[]> | undefined;
  let next = 0;

  const agent: AgentV1 = {
    specificationVersion: 'agent-v1',
    agentId,
    actionSpace: settings.actionSpace ?? DEFAULT_ACTION_SPACE,
    observationType: settings.observationType ?? PUBLISHED_RUNS_OBSERVATION_TYPE,
    params: offlineParams(
      agentId,
      settings.actionSpace ?? DEFAULT_ACTION_SPACE,
      settings.observationType ?? PUBLISHED_RUNS_OBSERVATION_TYPE,
      platform,
    ),
    reset() {
      next = 0;
    },
    async predict({ observation, abortSignal }: AgentPredictOptions) {
      abortSignal?.throwIfAborted();
      recording ??= settings.responses
        ? Promise.resolve(settings.responses.map(response => ({ response, actions: [] })))
        : readRecording(settings.trajectoryDir!);
      const steps = await recording;
      const linearizedTree = linearizedTreeOf(observation, platform);
      const step = steps[next];
      if (!step) return offlinePrediction(REPLAY_END_RESPONSE, ['DONE'], linearizedTree);
      next += 1;
      if (settings.actions === 'recorded')
        return offlinePrediction(step.response, [...step.actions], linearizedTree);
      let actions = parseActions(step.response, agent.actionSpace);
      let som: { taggedScreenshot: Buffer; marks: SomMark[] } | undefined;
      if (
        agent.observationType === 'som' &&
        observation.screenshot &&
        observation.accessibilityTree
      ) {
        const tagged = await tagScreenshot(observation.screenshot, observation.accessibilityTree, {
          platform,
        });
        som = { taggedScreenshot: tagged.taggedPng, marks: tagged.marks };
        const prelude = tagPrelude(tagged.marks);
        actions =
          actions?.map(action =>
            typeof action === 'string' && !isSpecialAction(action.trim())
              ? prelude + action
              : action,
          ) ?? null;
      }
      return offlinePrediction(step.response, actions, linearizedTree, som);
    },
  };
  return agent;
}

/** One recorded step: the raw response and the actions logged for it. */
interface RecordedStep {
  readonly response: string;
  readonly actions: readonly Action[];
}

/** The steps of a recorded `better_log.json`. */
async function readRecording(dir: string): Promise<readonly RecordedStep[]> {
  const file = join(dir, 'better_log.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new TaskValidationError({
      issues: [
        { severity: 'error', file, path: '$', message: 'file not found: nothing to replay' },
      ],
      cause: error,
    });
  }
  const json = parseJsonText(text, file);
  if (!json.ok) throw new TaskValidationError({ issues: [json.issue] });
  const parsed = betterLogSchema.safeParse(json.value, { reportInput: true });
  if (!parsed.success)
    throw new TaskValidationError({ issues: fromZodIssues(parsed.error.issues, file) });
  return (json.value as BetterLog).steps;
}
