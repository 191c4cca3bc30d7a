import {
  MAX_CONSECUTIVE_CONNECTION_FAILURES,
  unreachableMessage,
  type ModelEndpoint,
} from '@osharm/models';
import { formatModelFailure } from '@osharm/agent';
import type { RunOutcome } from './run-one';
import type { RunEndpoints } from './run-prechecks';

/**
 * Stops a batch whose model endpoint is down instead of failing every run the same way: after
 * {@link MAX_CONSECUTIVE_CONNECTION_FAILURES} runs in a row whose agent model could not be reached,
 * or at once when the endpoint refuses the key (401 / 403) or the model is unknown (404), no
 * further run starts. The same count on inline judging turns judging off for the rest of the
 * batch (the runs go on; judge them later with `osharm judge`).
 */
export class RunBreaker {
  stopped = false;
  stopReason: string | undefined;
  judgeEnabled: boolean;
  private agentFailures = 0;
  private judgeFailures = 0;

  constructor(private readonly endpoints: RunEndpoints) {
    this.judgeEnabled = endpoints.judge !== undefined;
  }

  /** Takes a finished run into account; returns a message to print when something changed. */
  record(outcome: RunOutcome): string | undefined {
    let note: string | undefined;
    const failure = outcome.modelFailure;
    if (failure?.kind === 'connection') {
      this.agentFailures += 1;
      if (this.agentFailures >= MAX_CONSECUTIVE_CONNECTION_FAILURES && !this.stopped) {
        note = this.stop(unreachableMessage([this.endpoints.agent!], failure, this.agentFailures));
      }
    } else if (outcome.score !== null || outcome.modelFailure) {
      // A run that reached its model (or finished) shows the endpoint is up.
      this.agentFailures = 0;
    }
    if (
      failure &&
      !this.stopped &&
      (failure.status === 401 ||
        failure.status === 403 ||
        failure.status === 404 ||
        failure.kind === 'setting')
    ) {
      note = this.stop(
        `the agent model ${this.endpoints.agent?.model ?? ''} refused every call: ${formatModelFailure(failure)}`,
      );
    }
    if (this.judgeEnabled && outcome.judgeConnectionFailure) {
      this.judgeFailures += 1;
      if (this.judgeFailures >= MAX_CONSECUTIVE_CONNECTION_FAILURES) {
        this.judgeEnabled = false;
        const endpoints = [this.endpoints.judge, this.endpoints.captioner].filter(
          (endpoint): endpoint is ModelEndpoint => endpoint !== undefined,
        );
        note = [
          note,
          `inline judging turned off: ${unreachableMessage(endpoints, outcome.judgeConnectionFailure, this.judgeFailures)} Judge the finished runs later with: osharm judge <result dir>`,
        ]
          .filter(Boolean)
          .join('\n');
      }
    } else if (outcome.judgment) this.judgeFailures = 0;
    return note;
  }

  private stop(reason: string): string {
    this.stopped = true;
    this.stopReason = reason;
    return `stopping the batch: ${reason}`;
  }
}
