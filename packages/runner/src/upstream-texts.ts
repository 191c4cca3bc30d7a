import { join } from 'node:path';
import { loadUpstreamAgentPrompts, type AgentPrompts } from '@osharm/agent';
import { loadUpstreamInjection, type UpstreamInjection } from '@osharm/injection';
import type { PromptProvenance } from '@osharm/task-schema';
import { openUpstream, UpstreamError, upstreamProvenance } from '@osharm/upstream';
import { RunOptionsError } from './run-options';

/** Every text a run shows the model or the desktop, read from an upstream checkout (`--upstream`). */
export interface UpstreamTexts {
  /** The checkout's absolute path. */
  readonly root: string;
  /** The prompt agent's words (mm_agents/). */
  readonly agentPrompts: AgentPrompts;
  /** Goal texts, vector templates and the jailbreak wrapper. */
  readonly injection: UpstreamInjection;
  /** `prompt_family: "upstream"` with every source read. */
  readonly provenance: PromptProvenance;
}

/** The environment variable naming the checkout when `--upstream` is not given. */
export const UPSTREAM_ENV = 'OSHARM_UPSTREAM';

/**
 * Reads every text of a run from an upstream OS-Harm checkout, before anything starts.
 * @throws {RunOptionsError} one line naming the file and symbol (not a checkout, a missing symbol,
 *   a file that is not UTF-8, a text this reader cannot fill)
 */
export function loadUpstreamTexts(dir: string): UpstreamTexts {
  try {
    const checkout = openUpstream(dir);
    const agent = loadUpstreamAgentPrompts(checkout);
    const injection = loadUpstreamInjection(checkout);
    return {
      root: checkout.root,
      agentPrompts: agent.prompts,
      injection,
      provenance: upstreamProvenance([...agent.sources, ...injection.sources]),
    };
  } catch (error) {
    if (UpstreamError.isInstance(error)) throw new RunOptionsError(`--upstream: ${error.message}`);
    throw error;
  }
}

/** The dataset of a checkout: its evaluation_examples/ (used when no base dir is given). */
export function upstreamDatasetDir(root: string): string {
  return join(root, 'evaluation_examples');
}
