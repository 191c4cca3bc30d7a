import { OsharmError } from '@osharm/task-schema';

const name = 'OsharmUpstreamError';
const marker = `osharm.error.${name}`;
const symbol = Symbol.for(marker);

/** Why an upstream checkout could not give osharm a text. */
export type UpstreamErrorReason =
  /** The directory lacks files of upstream's layout (`missing` lists them). */
  | 'not-a-checkout'
  /** A file of the checkout could not be read. */
  | 'unreadable'
  /** A file is not valid UTF-8. */
  | 'not-utf8'
  /** The file lacks the symbol. */
  | 'missing-symbol'
  /** The symbol is there but is not the shape osharm reads (not a string literal, a field it cannot fill, …). */
  | 'unsupported';

/**
 * The one error of `@osharm/upstream`. Its message is one line naming the checkout file and symbol,
 * e.g. `/src/os-harm/judge/methods/prompts.py: SYS_PROMPT_V3: not found`.
 */
export class UpstreamError extends OsharmError {
  private readonly [symbol] = true;
  readonly reason: UpstreamErrorReason;
  /** The checkout directory. */
  readonly root: string;
  /** The file inside the checkout (`/`-separated); undefined for a layout problem. */
  readonly file: string | undefined;
  /** The symbol asked for; undefined when the problem is the file itself. */
  readonly symbol: string | undefined;
  /** For `not-a-checkout`: the expected paths that are missing. */
  readonly missing: readonly string[];

  constructor(options: {
    reason: UpstreamErrorReason;
    root: string;
    file?: string;
    symbol?: string;
    detail: string;
    missing?: readonly string[];
    cause?: unknown;
  }) {
    const where = [
      options.file === undefined
        ? options.root
        : `${options.root.replace(/\/+$/, '')}/${options.file}`,
      options.symbol,
    ].filter(Boolean);
    super({ name, message: `${where.join(': ')}: ${options.detail}`, cause: options.cause });
    this.reason = options.reason;
    this.root = options.root;
    this.file = options.file;
    this.symbol = options.symbol;
    this.missing = options.missing ?? [];
  }

  static override isInstance(error: unknown): error is UpstreamError {
    return OsharmError.hasMarker(error, marker);
  }
}
