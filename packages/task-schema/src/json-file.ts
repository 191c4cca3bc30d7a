import { readFile } from 'node:fs/promises';
import type { ValidationIssue } from './validation-issue';

/** Result of {@link readJsonFile}: the value, or the one issue saying why there is none. */
export type JsonFileResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly issue: ValidationIssue };

function lineAndColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  return { line, column: position - before.lastIndexOf('\n') };
}

/** Parses JSON text; a syntax error becomes an issue with the line and column. */
export function parseJsonText(text: string, file: string): JsonFileResult {
  try {
    return { ok: true, value: JSON.parse(text.replace(/^\uFEFF/, '')) };
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    const where = position
      ? lineAndColumn(text, Number(position[1]))
      : text.trim() === ''
        ? { line: 1, column: 1 }
        : lineAndColumn(text, text.length);
    return {
      ok: false,
      issue: {
        severity: 'error',
        file,
        path: '$',
        ...where,
        message: `not valid JSON: ${message.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '')}`,
      },
    };
  }
}

/** Reads and parses a JSON file; a missing file or bad JSON becomes an issue naming the file. */
export async function readJsonFile(file: string): Promise<JsonFileResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      issue: {
        severity: 'error',
        file,
        path: '$',
        message:
          code === 'ENOENT'
            ? 'file not found'
            : code === 'EISDIR'
              ? 'is a directory, expected a JSON file'
              : `cannot read file (${code ?? (error as Error).message})`,
      },
    };
  }
  return parseJsonText(text, file);
}
