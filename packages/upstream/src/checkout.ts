import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { UpstreamSource } from '@osharm/task-schema';
import { PythonModule, ShapeError, type FoundFunction } from './python-module';
import { findLiterals, type CodePattern, type FindLiteralsOptions } from './python-find';
import { PythonSyntaxError } from './python-tokens';
import type { PyValue } from './python-values';
import { UpstreamError } from './upstream-error';
import { UpstreamText } from './upstream-text';

/** What a directory must hold to be read as an upstream OS-Harm checkout (`/` = a directory). */
export const UPSTREAM_LAYOUT: readonly string[] = [
  'run.py',
  'lib_run_single.py',
  'mm_agents/prompts.py',
  'mm_agents/agent.py',
  'judge/methods/prompts.py',
  'judge/methods/plain_judge.py',
  'judge/methods/aer.py',
  'judge/methods/all_step_aer.py',
  'desktop_env/',
  'evaluation_examples/',
  'assets/',
];

/**
 * Opens an upstream OS-Harm checkout: checks its layout (every path of {@link UPSTREAM_LAYOUT});
 * files are read when first asked for. Throws {@link UpstreamError} `not-a-checkout` listing what is
 * missing.
 */
export function openUpstream(dir: string): UpstreamCheckout {
  const root = resolve(dir);
  let rootIsDir = false;
  try {
    rootIsDir = statSync(root).isDirectory();
  } catch {
    // reported below
  }
  if (!rootIsDir)
    throw new UpstreamError({
      reason: 'not-a-checkout',
      root,
      detail: 'not an upstream OS-Harm checkout: no such directory',
      missing: [...UPSTREAM_LAYOUT],
    });
  const missing = UPSTREAM_LAYOUT.filter(path => {
    try {
      const stat = statSync(resolve(root, path));
      return path.endsWith('/') ? !stat.isDirectory() : !stat.isFile();
    } catch {
      return true;
    }
  });
  if (missing.length > 0)
    throw new UpstreamError({
      reason: 'not-a-checkout',
      root,
      detail: `not an upstream OS-Harm checkout: missing ${missing.join(', ')}`,
      missing,
    });
  return new UpstreamCheckout(root);
}

/** An upstream checkout whose layout was checked; hands out its Python files, each read once. */
export class UpstreamCheckout {
  private readonly files = new Map<string, UpstreamFile>();

  /** @internal use {@link openUpstream} */
  constructor(
    /** Absolute path of the checkout. */
    readonly root: string,
  ) {}

  /** A Python file of the checkout (`/`-separated path inside it), read and checked on first use. */
  file(path: string): UpstreamFile {
    let file = this.files.get(path);
    if (!file) {
      file = readUpstreamFile(this.root, path);
      this.files.set(path, file);
    }
    return file;
  }

  /** Absolute path of an entry of the checkout (e.g. `evaluation_examples`). */
  path(relative: string): string {
    return resolve(this.root, relative);
  }
}

function readUpstreamFile(root: string, path: string): UpstreamFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(resolve(root, path));
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? 'error';
    throw new UpstreamError({
      reason: 'unreadable',
      root,
      file: path,
      detail: `cannot read (${code})`,
      cause,
    });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch (cause) {
    throw new UpstreamError({
      reason: 'not-utf8',
      root,
      file: path,
      detail: 'not valid UTF-8',
      cause,
    });
  }
  return new UpstreamFile(root, path, createHash('sha256').update(bytes).digest('hex'), text);
}

/**
 * One Python file of the checkout. Every getter returns {@link UpstreamText}s carrying
 * `{ file, symbol, sha256 }`, or throws {@link UpstreamError} naming file and symbol.
 */
export class UpstreamFile {
  private parsed: PythonModule | undefined;

  /** @internal */
  constructor(
    private readonly root: string,
    /** Path inside the checkout, `/`-separated. */
    readonly path: string,
    /** sha256 (hex) of the file's bytes. */
    readonly sha256: string,
    private readonly text: string,
  ) {}

  /** The provenance record of a symbol of this file. */
  source(symbol: string): UpstreamSource {
    return { file: this.path, symbol, sha256: this.sha256 };
  }

  /** A module-level string constant (`NAME = """…"""`, optionally `.strip()`ped). */
  constant(name: string): UpstreamText {
    return this.guard(name, () => {
      const found = this.module(name).constant(name);
      if (!found) throw this.missing(name);
      return this.textOf(found.value, name, found.line);
    });
  }

  /**
   * A dict literal of strings (`name = {"key": "…", …}`), anywhere in the file or in the body of the
   * function `within`. Each value's symbol is `name["key"]`.
   */
  dict(name: string, options: { within?: string } = {}): ReadonlyMap<string, UpstreamText> {
    const symbol = options.within ? `${options.within}.${name}` : name;
    return this.guard(symbol, () => {
      const module = this.module(symbol);
      const scope = options.within ? this.fn(options.within).body : module.lines;
      const found = module.dict(name, scope);
      if (!found) throw this.missing(symbol);
      const line = scope.find(candidate => candidate.tokens[0]?.text === name)?.line ?? 0;
      return new Map(
        [...found].map(([key, value]) => [
          key,
          this.textOf(value, `${symbol}[${JSON.stringify(key)}]`, line),
        ]),
      );
    });
  }

  /** A function's local `name = <string>` (symbol `function.name`). */
  local(functionName: string, name: string): UpstreamText {
    const symbol = `${functionName}.${name}`;
    return this.guard(symbol, () => {
      const found = this.module(symbol).local(this.fn(functionName), name);
      if (!found) throw this.missing(symbol);
      return this.textOf(found.value, symbol, found.line);
    });
  }

  /**
   * A function that returns a string (`def f(x): y = f"…{x}…"; return y`): its parameters and a
   * `call` that fills the template as Python would for those arguments (symbol `f`).
   */
  returnedString(functionName: string): UpstreamFunctionText {
    return this.guard(functionName, () => {
      const fn = this.fn(functionName);
      const found = this.module(functionName).returnedString(fn);
      if (!found)
        throw this.unsupported(
          functionName,
          'does not return a string literal or a local bound to one',
        );
      const text = this.textOf(found.value, functionName, found.line);
      const parameters = fn.parameters.map(parameter => parameter.name);
      return {
        parameters,
        text,
        call: (...args: readonly PyValue[]) => {
          if (args.length !== parameters.length)
            throw this.unsupported(
              functionName,
              `takes ${parameters.length} argument(s), ${args.length} given`,
            );
          return text.fill(Object.fromEntries(parameters.map((name, i) => [name, args[i]!])));
        },
      };
    });
  }

  /** The literal defaults of a function's parameters (`def f(a, b=0, c="x")` gives `{ b: 0, c: "x" }`). */
  defaults(functionName: string): Readonly<Record<string, PyValue>> {
    return this.guard(functionName, () =>
      Object.fromEntries(
        this.fn(functionName)
          .parameters.filter(parameter => parameter.default !== undefined)
          .map(parameter => [parameter.name, parameter.default!]),
      ),
    );
  }

  /**
   * Every string expression in a function's body, in source order, dict keys left out (symbol:
   * the function). `dictKey` is the key a string is the value of; `method` the method called on
   * it right away (`format`, `strip`, …); `statement` the first token of its statement (`return`, …).
   * Callers pick texts by their place and check the shape.
   */
  strings(functionName: string): readonly UpstreamFunctionString[] {
    return this.guard(functionName, () =>
      this.module(functionName)
        .strings(this.fn(functionName))
        .map(found => ({
          text: this.textOf(found.value, functionName, found.line),
          statement: found.statement,
          ...(found.dictKey !== undefined && { dictKey: found.dictKey }),
          ...(found.method !== undefined && { method: found.method }),
        })),
    );
  }

  /** The file's text (for a template file of the checkout, e.g. `assets/website_template.html`). */
  get content(): string {
    return this.text;
  }

  /**
   * String expressions found by the code around them: every match of `pattern` (token texts, and
   * {@link STRING_LITERAL} capturing a string expression) in the statements inside `within`
   * (`Class.method` or `function`) sitting under a block header naming `under` (e.g. `"som"` in
   * `elif self.observation_type == "som":`). Each match gives its captures in order (symbol:
   * `within`, else the file). Callers check the count.
   */
  find(pattern: CodePattern, options: FindLiteralsOptions = {}): UpstreamText[][] {
    const symbol = options.within ?? '(module)';
    return this.guard(symbol, () => {
      let found;
      try {
        found = findLiterals(this.text, pattern, options);
      } catch (cause) {
        if (cause instanceof PythonSyntaxError) throw cause;
        throw this.missing(symbol);
      }
      return found.map(match => match.strings.map(value => this.textOf(value, symbol, match.line)));
    });
  }

  /** True when the file defines `name` at module level (a constant) or as a function. */
  has(name: string): boolean {
    return this.guard(name, () => {
      const module = this.module(name);
      return (
        module.function(name) !== undefined ||
        module.lines.some(
          l => l.indent === 0 && l.tokens[0]?.text === name && l.tokens[1]?.text === '=',
        )
      );
    });
  }

  private module(symbol: string): PythonModule {
    if (!this.parsed) {
      try {
        this.parsed = new PythonModule(this.text);
      } catch (cause) {
        if (cause instanceof PythonSyntaxError)
          throw this.unsupported(symbol, cause.message, cause);
        throw cause;
      }
    }
    return this.parsed;
  }

  private fn(name: string): FoundFunction {
    const found = this.module(name).function(name);
    if (!found) throw this.missing(name);
    return found;
  }

  private textOf(
    value: ConstructorParameters<typeof UpstreamText>[0],
    symbol: string,
    line: number,
  ) {
    return new UpstreamText(value, this.source(symbol), line, this.root);
  }

  private guard<T>(symbol: string, read: () => T): T {
    try {
      return read();
    } catch (cause) {
      if (cause instanceof ShapeError || cause instanceof PythonSyntaxError)
        throw this.unsupported(symbol, cause.message, cause);
      throw cause;
    }
  }

  private missing(symbol: string): UpstreamError {
    return new UpstreamError({
      reason: 'missing-symbol',
      root: this.root,
      file: this.path,
      symbol,
      detail: 'not found',
    });
  }

  private unsupported(symbol: string, detail: string, cause?: unknown): UpstreamError {
    return new UpstreamError({
      reason: 'unsupported',
      root: this.root,
      file: this.path,
      symbol,
      detail,
      cause,
    });
  }
}

/** A function returning a string, read by {@link UpstreamFile.returnedString}. */
export interface UpstreamFunctionText {
  readonly parameters: readonly string[];
  readonly text: UpstreamText;
  /** The function's result for these positional arguments. */
  readonly call: (...args: readonly PyValue[]) => string;
}

/** A string expression of a function body, found by {@link UpstreamFile.strings}. */
export interface UpstreamFunctionString {
  readonly text: UpstreamText;
  readonly dictKey?: string;
  readonly method?: string;
  /** The first token of its statement (`return`, `raise`, the assigned name, …). */
  readonly statement: string;
}
