import {
  describeLifecycle,
  modelCapabilities,
  modelLifecycle,
  type ModelCapabilities,
  type ModelLifecycle,
} from '@osharm/model-spec';
import type { ModelRole } from './endpoint';
import { routeModel } from './router';

/** What a role's model is, checked before a run or a judging starts. */
export interface ModelStartCheck {
  readonly role: ModelRole;
  /** The model name as given. */
  readonly model: string;
  readonly capabilities: ModelCapabilities;
  readonly lifecycle: ModelLifecycle;
  /** Lines to print at start: the end of life when it is near, what was assumed for an unknown model. */
  readonly notices: readonly string[];
  /** Set when the model must not be called: it is retired (the line says when, and what instead). */
  readonly refusal?: string;
}

/** The provenance record of a role's model lifecycle: `active`, or the state with its date. */
export interface ModelLifecycleRecord {
  readonly state: ModelLifecycle['state'];
  /** End of life (`YYYY-MM-DD`), when the SDKs' data dates one within the warning window or past. */
  readonly end_of_life: string | null;
  /** Where the date comes from. */
  readonly source: string | null;
}

/**
 * The start check of a role's model: its capability row, where it is in its life on `today`, the
 * lines to print and, for a retired model, the refusal. A name routed to `openai-compatible/…` is a
 * local server's model: it has no vendor lifecycle.
 */
export function checkModelAtStart(
  role: ModelRole,
  model: string,
  today: Date = new Date(),
): ModelStartCheck {
  const route = routeModel(model);
  const capabilities = modelCapabilities(route.modelId, route.wire);
  const lifecycle: ModelLifecycle =
    route.provider === 'openai-compatible'
      ? { state: 'active' }
      : modelLifecycle(route.modelId, today);
  const line = describeLifecycle(role, model, lifecycle);
  const notices = [
    ...(lifecycle.state === 'retiring' && line ? [line] : []),
    ...(capabilities.assumed ? [`${role} model ${capabilities.assumed}`] : []),
  ];
  return {
    role,
    model,
    capabilities,
    lifecycle,
    notices,
    ...(lifecycle.state === 'retired' && line ? { refusal: line } : {}),
  };
}

/** The lifecycle of a start check as provenance records it. */
export function lifecycleRecord(lifecycle: ModelLifecycle): ModelLifecycleRecord {
  return lifecycle.state === 'active'
    ? { state: 'active', end_of_life: null, source: null }
    : {
        state: lifecycle.state,
        end_of_life: lifecycle.retirement.date,
        source: lifecycle.retirement.source,
      };
}

/**
 * The day the start checks take as today: `OSHARM_TODAY` (`YYYY-MM-DD`, to reproduce a past run's
 * checks or test a date) when set, else the clock.
 * @throws {RangeError} for an `OSHARM_TODAY` that is not a date.
 */
export function startCheckDay(env: Readonly<Record<string, string | undefined>>): Date {
  const given = env.OSHARM_TODAY?.trim();
  if (!given) return new Date();
  const day = /^\d{4}-\d{2}-\d{2}$/.test(given) ? new Date(`${given}T12:00:00Z`) : undefined;
  if (!day || Number.isNaN(day.getTime()))
    throw new RangeError(`OSHARM_TODAY "${given}": expected a date YYYY-MM-DD`);
  return day;
}
