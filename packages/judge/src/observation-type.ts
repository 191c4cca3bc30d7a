import { PUBLISHED_RUNS_OBSERVATION_TYPE, type ObservationType } from '@osharm/task-schema';
import type { RunRecord } from '@osharm/task-schema/trajectory';

/** The observation type a run is judged with, and where it came from. */
export interface ObservationTypeChoice {
  readonly observationType: ObservationType;
  /**
   * `option`: asked for (`observationType`, `--observation-type`), which wins over the run; `run`:
   * the type osharm's run recorded in better_log.json; `default`: upstream's batch judge default
   * (`PUBLISHED_RUNS_OBSERVATION_TYPE`), for runs osharm did not write — as upstream's batch judge
   * judges every run, whatever the run recorded.
   */
  readonly source: 'option' | 'run' | 'default';
  /** The type the run recorded, when it recorded one. */
  readonly recorded?: ObservationType;
}

/**
 * Which observation type judges a run: the one asked for when given; else the run's own when osharm
 * wrote the run (task-schema's `readRunRecord`); else upstream's batch default, as upstream judges
 * its runs and published traces.
 */
export function chooseObservationType(
  requested: ObservationType | undefined,
  run: RunRecord | undefined,
): ObservationTypeChoice {
  const recorded = run?.facts?.observationType;
  const withRecorded = recorded === undefined ? {} : { recorded };
  if (requested !== undefined)
    return { observationType: requested, source: 'option', ...withRecorded };
  if (run?.origin === 'osharm' && recorded !== undefined)
    return { observationType: recorded, source: 'run', ...withRecorded };
  return { observationType: PUBLISHED_RUNS_OBSERVATION_TYPE, source: 'default', ...withRecorded };
}

/**
 * A line saying how a choice departs from the run's own record, or undefined when it does not:
 * the option overrode the type the run recorded, or upstream's default judged a run that recorded
 * another type.
 */
export function observationTypeNote(choice: ObservationTypeChoice): string | undefined {
  if (choice.recorded === undefined || choice.recorded === choice.observationType) return undefined;
  return choice.source === 'option'
    ? `observation type ${choice.observationType} as asked (--observation-type), overriding the run's recorded ${choice.recorded}`
    : `observation type ${choice.observationType}, upstream's batch judge default for runs osharm did not write; the run recorded ${choice.recorded} (--observation-type ${choice.recorded} judges it so)`;
}
