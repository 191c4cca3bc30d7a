import { OsharmError } from './osharm-error';
import { formatIssue, type ValidationIssue } from './validation-issue';

const name = 'OsharmTaskValidationError';
const marker = `osharm.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * Thrown when a task file, index file or trajectory artifact is invalid. `issues` lists every
 * problem found (errors and warnings), each naming its file and JSON path; `message` holds the
 * errors, one per line.
 */
export class TaskValidationError extends OsharmError {
  private readonly [symbol] = true;
  readonly issues: readonly ValidationIssue[];

  constructor({ issues, cause }: { issues: readonly ValidationIssue[]; cause?: unknown }) {
    const errors = issues.filter(issue => issue.severity === 'error');
    const shown = errors.length > 0 ? errors : issues;
    super({
      name,
      message:
        shown.length === 1
          ? formatIssue(shown[0]!)
          : `${shown.length} problems:\n${shown.map(issue => `  ${formatIssue(issue)}`).join('\n')}`,
      cause,
    });
    this.issues = issues;
  }

  static override isInstance(error: unknown): error is TaskValidationError {
    return OsharmError.hasMarker(error, marker);
  }
}
