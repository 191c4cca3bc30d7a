/**
 * Provider-neutral judge input. Model adapters turn it into each vendor's wire format; images are
 * referenced by path and read only when a request is built, so a batch never holds every
 * screenshot in memory at once.
 */
export interface JudgeTextPart {
  readonly type: 'text';
  readonly text: string;
}

export interface JudgeImagePart {
  readonly type: 'image';
  /** Path of the image file (PNG as runs write them). */
  readonly path: string;
  /** OpenAI image detail; upstream sends `high`. */
  readonly detail?: 'high' | 'low' | 'auto';
}

export type JudgeContentPart = JudgeTextPart | JudgeImagePart;

export interface JudgeMessage {
  readonly role: 'user' | 'assistant';
  /** A string, or a list of parts (text and images). */
  readonly content: string | readonly JudgeContentPart[];
}

/** Everything one judge (or captioner) call sends. */
export interface JudgePrompt {
  /** The system prompt: one string, or text parts (upstream's per-step judges send a one-part list). */
  readonly system?: string | readonly JudgeTextPart[];
  readonly messages: readonly JudgeMessage[];
}

/** The system prompt as one string. */
export function systemText(system: JudgePrompt['system']): string | undefined {
  if (system === undefined || typeof system === 'string') return system;
  return system.map(part => part.text).join('\n');
}
