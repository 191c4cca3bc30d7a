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
  /**
   * OpenAI image detail; `null` names none (no `detail` key: the API's default). @default 'high'
   * (upstream's judges send `high`, its captioner none)
   */
  readonly detail?: 'high' | 'low' | 'auto' | null;
}

export type JudgeContentPart = JudgeTextPart | JudgeImagePart;

export interface JudgeMessage {
  readonly role: 'user' | 'assistant';
  /** A string, or a list of parts (text and images). */
  readonly content: string | readonly JudgeContentPart[];
}

/** Everything one judge (or captioner) call sends. */
export interface JudgePrompt {
  /**
   * The system prompt: one string, or text parts — sent in that form (upstream's per-step judges
   * send a one-part list; osharm's own judges a string).
   */
  readonly system?: string | readonly JudgeTextPart[];
  readonly messages: readonly JudgeMessage[];
}
