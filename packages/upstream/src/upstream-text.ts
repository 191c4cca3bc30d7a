import type { UpstreamSource } from '@osharm/task-schema';
import { pyStrip, type PyString, type TemplatePart } from './python-strings';
import { fillTemplate, pyFormat, TemplateFillError, type PyValue } from './python-values';
import { UpstreamError } from './upstream-error';

/**
 * One text read from an upstream checkout: a plain `str` or an f-string template, with where it
 * came from. Filling it follows Python (`str.format`, f-string fields); what Python would do that
 * this reader cannot is an {@link UpstreamError} naming file and symbol, never a guess.
 */
export class UpstreamText {
  constructor(
    private readonly value: PyString,
    /** File, symbol and the file's sha256. */
    readonly source: UpstreamSource,
    /** 1-based line of the text in its file. */
    readonly line: number,
    private readonly root: string,
  ) {}

  /** `str` or `fstring`. */
  get kind(): PyString['kind'] {
    return this.value.kind;
  }

  /** Literal text and f-string fields, in order. */
  get parts(): readonly TemplatePart[] {
    return this.value.parts;
  }

  /** The text of a plain string (an f-string must be {@link fill}ed). */
  get text(): string {
    if (this.value.parts.some(part => typeof part !== 'string'))
      throw this.error('an f-string: it needs values for its fields');
    return this.value.parts.join('');
  }

  /** Python's `text.strip()` (also `lstrip` / `rstrip`): a new text with the same source. */
  strip(which: 'strip' | 'lstrip' | 'rstrip' = 'strip'): UpstreamText {
    return new UpstreamText(
      { kind: 'str', parts: [pyStrip(this.text, which)] },
      this.source,
      this.line,
      this.root,
    );
  }

  /** Python's `text.format(*positional)`. */
  format(...positional: readonly PyValue[]): string {
    return this.guard(() => pyFormat(this.text, positional));
  }

  /** Python's `text.format(**named)`. */
  formatNamed(named: Readonly<Record<string, PyValue>>): string {
    return this.guard(() => pyFormat(this.text, [], named));
  }

  /** The f-string evaluated with `scope` as the names in reach (a plain string is returned as is). */
  fill(scope: Readonly<Record<string, PyValue>> = {}): string {
    return this.guard(() => fillTemplate(this.value, scope));
  }

  private guard(fill: () => string): string {
    try {
      return fill();
    } catch (error) {
      if (error instanceof TemplateFillError) throw this.error(error.message, error);
      throw error;
    }
  }

  private error(detail: string, cause?: unknown): UpstreamError {
    return new UpstreamError({
      reason: 'unsupported',
      root: this.root,
      file: this.source.file,
      symbol: this.source.symbol,
      detail: `line ${this.line}: ${detail}`,
      cause,
    });
  }
}
