import { OsharmError } from '@osharm/task-schema';
import type { AgentModelFailure } from './agent';
import { formatModelFailure } from './model-failure';

const settingName = 'OsharmAgentSettingError';
const settingMarker = `osharm.error.${settingName}`;
const settingSymbol = Symbol.for(settingMarker);

/**
 * A setting of the agent or its model is missing or invalid: no API key, `som` with `computer_13`,
 * a negative history length, a replay source that names nothing. Not retryable.
 */
export class AgentSettingError extends OsharmError {
  private readonly [settingSymbol] = true;

  constructor({ message, cause }: { message: string; cause?: unknown }) {
    super({ name: settingName, message, cause });
  }

  static override isInstance(error: unknown): error is AgentSettingError {
    return OsharmError.hasMarker(error, settingMarker);
  }
}

const observationName = 'OsharmAgentObservationError';
const observationMarker = `osharm.error.${observationName}`;
const observationSymbol = Symbol.for(observationMarker);

/**
 * An observation lacks what the agent's observation type needs: a screenshot for `screenshot`,
 * `screenshot_a11y_tree` and `som`; an accessibility tree for `a11y_tree`,
 * `screenshot_a11y_tree` and `som`. Not retryable (the env was asked for the wrong observation).
 */
export class AgentObservationError extends OsharmError {
  private readonly [observationSymbol] = true;

  constructor({ message }: { message: string }) {
    super({ name: observationName, message });
  }

  static override isInstance(error: unknown): error is AgentObservationError {
    return OsharmError.hasMarker(error, observationMarker);
  }
}

const callName = 'OsharmAgentModelCallError';
const callMarker = `osharm.error.${callName}`;
const callSymbol = Symbol.for(callMarker);

/**
 * The agent's model call failed after the SDK's own retries (429, 5xx, a dropped connection, a
 * timeout), or was refused outright (401 / 403 / 404, no API key). `runTask` ends the run with it
 * as an error: an `{"Error": …}` line in traj.jsonl and no result.txt, as upstream's exception path.
 */
export class AgentModelCallError extends OsharmError {
  private readonly [callSymbol] = true;
  /** What failed, for summaries and for deciding whether the whole batch should stop. */
  readonly failure: AgentModelFailure;

  constructor({ failure, cause }: { failure: AgentModelFailure; cause?: unknown }) {
    super({
      name: callName,
      message: `agent model call failed: ${formatModelFailure(failure)}`,
      cause,
    });
    this.failure = failure;
  }

  static override isInstance(error: unknown): error is AgentModelCallError {
    return OsharmError.hasMarker(error, callMarker);
  }
}
