/** One problem found in a data file: which file, where in it, and what was expected. */
export interface ValidationIssue {
  /** `error` makes the file invalid; `warning` is reported and the data is kept as is. */
  readonly severity: 'error' | 'warning';
  /** Path of the file the problem is in, as given to the loader. */
  readonly file: string;
  /**
   * JSON path of the offending value, e.g. `$.config[2].parameters.command`; `$` for the whole
   * document. For JSON syntax errors it is `$` and `line`/`column` are set.
   */
  readonly path: string;
  /** What is wrong and what was expected, in one sentence. */
  readonly message: string;
  /** 1-based line of a JSON syntax error. */
  readonly line?: number;
  /** 1-based column of a JSON syntax error. */
  readonly column?: number;
}

/** Formats an issue as one line: `file: $.path: message`. */
export function formatIssue(issue: ValidationIssue): string {
  const where =
    issue.line === undefined ? issue.path : `line ${issue.line}, column ${issue.column}`;
  return `${issue.file}: ${where}: ${issue.message}`;
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Turns a key list into a JSON path string: `['config', 2, 'type']` → `$.config[2].type`. */
export function toJsonPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '$';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && identifier.test(key)) out += `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}
