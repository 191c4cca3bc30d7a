import type { ObservationType } from '@osharm/task-schema';
import { linearizeAccessibilityTree } from './a11y-linearize';
import type { A11yPlatform } from './a11y-namespaces';
import { trimToTokens } from './a11y-trim';
import { parseAccessibilityTree } from './a11y-xml';
import { AgentObservationError } from './agent-errors';
import type { AgentObservation } from './agent';
import { tagScreenshot, type SomMark } from './som-tag';

/** Options of {@link prepareObservation}. */
export interface PrepareObservationOptions {
  readonly observationType: ObservationType;
  /** @default 'ubuntu' */
  readonly platform?: A11yPlatform;
  /** Token budget of the table the model sees. @default 10000 */
  readonly a11yTreeMaxTokens?: number;
  /** See `LinearizeOptions.fillClassAndDescription`. @default false */
  readonly fillClassAndDescription?: boolean;
}

/** An observation turned into what a prompt and a log need. */
export interface PreparedObservation {
  /** Base64 of the screenshot the model sees (the tagged one for `som`); undefined without one. */
  readonly imageBase64?: string;
  /** The table the model sees, token-trimmed (7 columns, or the SoM table); undefined if none. */
  readonly promptTable?: string;
  /** The untrimmed 7-column table for `better_log.json`; null without a tree. */
  readonly linearizedTree: string | null;
  readonly taggedScreenshot?: Buffer;
  readonly marks?: SomMark[];
}

const needsScreenshot = (type: ObservationType) => type !== 'a11y_tree';
const needsTree = (type: ObservationType) => type !== 'screenshot';

/**
 * Reads an observation for an observation type: the screenshot as base64, the accessibility table
 * (parsed once; trimmed for the prompt, untrimmed for the log), and for `som` the tagged screenshot
 * and its marks.
 * @throws {AgentObservationError} when the screenshot or the tree the type needs is missing.
 */
export async function prepareObservation(
  observation: AgentObservation,
  {
    observationType,
    platform = 'ubuntu',
    a11yTreeMaxTokens = 10_000,
    fillClassAndDescription = false,
  }: PrepareObservationOptions,
): Promise<PreparedObservation> {
  const { screenshot, accessibilityTree } = observation;
  if (needsScreenshot(observationType) && !screenshot)
    throw new AgentObservationError({
      message: `observation type "${observationType}" needs a screenshot, and the observation has none`,
    });
  if (needsTree(observationType) && (accessibilityTree === null || accessibilityTree === undefined))
    throw new AgentObservationError({
      message: `observation type "${observationType}" needs an accessibility tree, and the observation has none (create the env with require_a11y_tree)`,
    });
  const parsed =
    accessibilityTree === null || accessibilityTree === undefined
      ? undefined
      : parseAccessibilityTree(accessibilityTree);
  const linearizedTree = parsed
    ? linearizeAccessibilityTree(parsed, { platform, fillClassAndDescription })
    : null;
  if (observationType === 'som') {
    const tagged = await tagScreenshot(screenshot!, parsed!, { platform });
    return {
      imageBase64: tagged.taggedPng.toString('base64'),
      promptTable: trimToTokens(tagged.table, a11yTreeMaxTokens),
      linearizedTree,
      taggedScreenshot: tagged.taggedPng,
      marks: tagged.marks,
    };
  }
  return {
    ...(screenshot && needsScreenshot(observationType)
      ? {
          imageBase64: Buffer.from(
            screenshot.buffer,
            screenshot.byteOffset,
            screenshot.byteLength,
          ).toString('base64'),
        }
      : {}),
    ...(linearizedTree !== null && needsTree(observationType)
      ? { promptTable: trimToTokens(linearizedTree, a11yTreeMaxTokens) }
      : {}),
    linearizedTree,
  };
}
