/**
 * What the capability table means for one request: the sampling a model takes, why an explicit
 * value is refused, the computer tool of a run.
 */
import type { ModelCapabilities } from './model-capabilities';

/** The sampling parameters a request may carry for a family: undefined values are not sent. */
export function acceptedSampling(
  capabilities: Pick<ModelCapabilities, 'sampling'>,
  requested: { readonly temperature?: number; readonly topP?: number },
): { temperature?: number; topP?: number } {
  switch (capabilities.sampling) {
    case 'none':
    case 'default-only':
      return {};
    case 'one-of':
      return requested.temperature !== undefined
        ? { temperature: requested.temperature }
        : requested.topP !== undefined
          ? { topP: requested.topP }
          : {};
    case 'any':
      return {
        ...(requested.temperature !== undefined && { temperature: requested.temperature }),
        ...(requested.topP !== undefined && { topP: requested.topP }),
      };
  }
}

/**
 * Why a family refuses sampling values the user asked for explicitly, or undefined when it takes
 * them. `flags` names each value's flag for the message.
 */
export function samplingRefusal(
  capabilities: Pick<ModelCapabilities, 'sampling' | 'modelId'>,
  given: { readonly temperature?: number; readonly topP?: number },
  flags: { readonly temperature: string; readonly topP: string } = {
    temperature: 'temperature',
    topP: 'top_p',
  },
): string | undefined {
  const named = (
    [
      ['temperature', given.temperature],
      ['topP', given.topP],
    ] as const
  ).filter(([, value]) => value !== undefined);
  if (named.length === 0) return undefined;
  const list = named.map(([key, value]) => `${flags[key]} ${value}`).join(', ');
  switch (capabilities.sampling) {
    case 'none':
      return `${capabilities.modelId} accepts no sampling parameters (${list}): drop the flag`;
    case 'default-only':
      return named.some(([, value]) => value !== 1)
        ? `${capabilities.modelId} accepts only the default sampling (1), not ${list}: drop the flag`
        : undefined;
    case 'one-of':
      return named.length > 1
        ? `${capabilities.modelId} accepts ${flags.temperature} or ${flags.topP}, not both (${list})`
        : undefined;
    case 'any':
      return undefined;
  }
}

/**
 * The computer tool of a run: the one asked for, checked against the family, else the family's
 * default. @throws {RangeError} naming what the model accepts.
 */
export function computerToolFor(capabilities: ModelCapabilities, requested?: string): string {
  if (requested === undefined) {
    if (capabilities.defaultComputerTool === undefined)
      throw new RangeError(`${capabilities.modelId} has no computer tool`);
    return capabilities.defaultComputerTool;
  }
  if (!capabilities.computerTools.includes(requested))
    throw new RangeError(
      `computer tool "${requested}" is refused by ${capabilities.modelId} (${capabilities.family}); it accepts: ${capabilities.computerTools.join(', ') || 'none'}`,
    );
  return requested;
}
