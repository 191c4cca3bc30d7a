import type { z } from 'zod';
import { toJsonPath, type ValidationIssue } from './validation-issue';

type ZodIssue = z.core.$ZodIssue;

/** Describes a JSON value for an error message: `number 3`, `string "x"`, `array`, `null`. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

const article = (type: string) =>
  (
    ({
      array: 'an array',
      object: 'an object',
      record: 'an object',
      integer: 'an integer',
      int: 'an integer',
    }) as Record<string, string>
  )[type] ?? `a ${type}`;

/**
 * `params` of the refinement that makes a catch-all union branch (setup steps or getters of an
 * unknown `type`) reject the known types. A branch failing on it is the wrong branch for this
 * value, so its issues are never reported.
 */
export const CATCH_ALL_BRANCH = { osharmCatchAllBranch: true } as const;

function isCatchAllRejection(issue: ZodIssue): boolean {
  return (
    issue.code === 'custom' &&
    (issue.params as { osharmCatchAllBranch?: unknown } | undefined)?.osharmCatchAllBranch === true
  );
}

function expectedOf(issue: ZodIssue): string[] | undefined {
  if (issue.code === 'invalid_type') return [article(issue.expected)];
  if (issue.code === 'invalid_value')
    return issue.values.map(value => JSON.stringify(value) ?? String(value));
  if (issue.code === 'invalid_union' && issue.errors.length > 0)
    return issue.errors.flatMap(branch => branch.flatMap(inner => expectedOf(inner) ?? []));
  return undefined;
}

/** How far into the value an issue got: its path length, plus the best of a nested union's branches. */
function issueDepth(issue: ZodIssue): number {
  const nested =
    issue.code === 'invalid_union' && issue.errors.length > 0
      ? Math.max(0, ...issue.errors.map(branchDepth))
      : 0;
  return issue.path.length + nested;
}

const branchDepth = (branch: readonly ZodIssue[]) => Math.max(0, ...branch.map(issueDepth));

/**
 * The issues of the union branch that got furthest (deepest path; the first on a tie), or undefined
 * when none got past the value itself. Catch-all branches that rejected a known `type` are skipped.
 */
function deepestBranch(branches: ZodIssue[][]): ZodIssue[] | undefined {
  const relevant = branches.filter(branch => !branch.some(isCatchAllRejection));
  let best: ZodIssue[] | undefined;
  let bestDepth = 0;
  for (const branch of relevant) {
    const depth = branchDepth(branch);
    if (depth > bestDepth) {
      best = branch;
      bestDepth = depth;
    }
  }
  // One branch left (a known type's schema): report its issues even at depth 0.
  return (
    best ?? (relevant.length === 1 && relevant.length < branches.length ? relevant[0] : undefined)
  );
}

function messageOf(issue: ZodIssue): string {
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case 'invalid_type':
      return input === undefined
        ? `required field is missing (expected ${article(issue.expected)})`
        : `expected ${article(issue.expected)}, got ${describeValue(input)}`;
    case 'invalid_value': {
      const values = issue.values.map(value => JSON.stringify(value));
      return values.length === 1
        ? `expected ${values[0]}, got ${describeValue(input)}`
        : `expected one of ${values.join(', ')}, got ${describeValue(input)}`;
    }
    case 'too_small':
      if (issue.origin === 'array') return `must have at least ${issue.minimum} item(s)`;
      if (issue.origin === 'string')
        return issue.minimum === 1
          ? 'must not be empty'
          : `must be at least ${issue.minimum} characters`;
      return `must be ${issue.inclusive ? '>=' : '>'} ${issue.minimum}, got ${describeValue(input)}`;
    case 'too_big':
      return `must be ${issue.inclusive ? '<=' : '<'} ${issue.maximum}, got ${describeValue(input)}`;
    case 'invalid_format':
      if (issue.format === 'regex') {
        // `.regex(pattern, message)` gives its own message; zod's default starts with "Invalid".
        const rule = issue.message.startsWith('Invalid')
          ? `must match the pattern ${(issue as { pattern?: string }).pattern ?? ''}`
          : issue.message;
        return `${rule}, got ${describeValue(input)}`;
      }
      return `expected a valid ${issue.format}, got ${describeValue(input)}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    default:
      return issue.message;
  }
}

/**
 * Converts zod issues into {@link ValidationIssue}s naming `file` and the JSON path, with messages
 * that say what was expected and what was found. Unions are flattened: when no branch got past the
 * value itself, the expected types are listed together ("expected a string or an array").
 * Parse with `{ reportInput: true }` so messages can show the offending value.
 */
export function fromZodIssues(
  issues: readonly ZodIssue[],
  file: string,
  basePath: ReadonlyArray<PropertyKey> = [],
): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of issues) {
    const path = [...basePath, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const branch = deepestBranch(issue.errors);
      if (branch) {
        out.push(...fromZodIssues(branch, file, path));
        continue;
      }
      const expected = issue.errors
        .filter(branchIssues => !branchIssues.some(isCatchAllRejection))
        .flatMap(branchIssues => branchIssues.flatMap(inner => expectedOf(inner) ?? []));
      const input = (issue as { input?: unknown }).input;
      const wanted = expected.length > 0 ? [...new Set(expected)].join(' or ') : 'another value';
      out.push({
        severity: 'error',
        file,
        path: toJsonPath(path),
        message:
          input === undefined
            ? `required field is missing (expected ${wanted})`
            : `expected ${wanted}, got ${describeValue(input)}`,
      });
      continue;
    }
    out.push({ severity: 'error', file, path: toJsonPath(path), message: messageOf(issue) });
  }
  return out;
}
