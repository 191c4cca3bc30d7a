import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
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

/** Where JSON text first goes wrong, and what was expected there. */
class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Finds the first syntax error of JSON text (RFC 8259). `JSON.parse` messages differ between Node
 * versions, often lack the position and may quote the text around the error, line breaks included;
 * this scanner gives a stable one-line message and the exact offset instead.
 */
function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let at = 0;
  const fail = (message: string, offset = at): never => {
    throw new JsonSyntaxError(offset, message);
  };
  const found = (offset = at): string => {
    if (offset >= text.length) return 'end of input';
    const word = /[A-Za-z0-9_$.+-]+/y;
    word.lastIndex = offset;
    const match = word.exec(text);
    if (match) return `'${match[0].slice(0, 20)}'`;
    const code = text.charCodeAt(offset);
    return code < 0x20
      ? `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
      : `'${text[offset]}'`;
  };
  const skipSpace = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at += 1;
  };
  const string = () => {
    const start = at;
    at += 1;
    for (;;) {
      if (at >= text.length) fail("unterminated string (no closing '\"')", start);
      const char = text[at]!;
      const code = text.charCodeAt(at);
      if (char === '"') {
        at += 1;
        return;
      }
      if (code === 0x0a || code === 0x0d)
        fail("line break inside a string (missing closing '\"'?)");
      if (code < 0x20) fail(`unescaped control character ${found()} inside a string`);
      if (char === '\\') {
        const next = text[at + 1];
        if (next !== undefined && '"\\/bfnrt'.includes(next)) at += 2;
        else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) at += 6;
        else
          fail(
            `bad escape sequence '${text.slice(at, next === 'u' ? at + 6 : at + 2)}' in a string`,
          );
      } else at += 1;
    }
  };
  const value = (what: string): void => {
    skipSpace();
    const char = text[at];
    if (char === '{') {
      at += 1;
      skipSpace();
      if (text[at] === '}') {
        at += 1;
        return;
      }
      for (;;) {
        skipSpace();
        if (text[at] !== '"') fail(`expected a property name in double quotes, got ${found()}`);
        string();
        skipSpace();
        if (text[at] !== ':') fail(`expected ':' after a property name, got ${found()}`);
        at += 1;
        value('a property value');
        skipSpace();
        if (text[at] === ',') at += 1;
        else if (text[at] === '}') {
          at += 1;
          return;
        } else fail(`expected ',' or '}' after a property value, got ${found()}`);
      }
    }
    if (char === '[') {
      at += 1;
      skipSpace();
      if (text[at] === ']') {
        at += 1;
        return;
      }
      for (;;) {
        value('an array element');
        skipSpace();
        if (text[at] === ',') at += 1;
        else if (text[at] === ']') {
          at += 1;
          return;
        } else fail(`expected ',' or ']' after an array element, got ${found()}`);
      }
    }
    if (char === '"') return string();
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, at)) {
        at += literal.length;
        return;
      }
    }
    const number = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
    number.lastIndex = at;
    const match = char !== undefined && /[-0-9]/.test(char) ? number.exec(text) : null;
    if (match) {
      at += match[0].length;
      return;
    }
    fail(`expected ${what}, got ${found()}`);
  };
  try {
    if (text.trim() === '') fail('the text is empty, expected a JSON value', 0);
    value('a JSON value');
    skipSpace();
    if (at < text.length) fail(`expected nothing after the JSON value, got ${found()}`);
    return undefined;
  } catch (error) {
    if (error instanceof JsonSyntaxError) return error;
    return undefined; // e.g. too deeply nested for this scanner
  }
}

/** Parses JSON text; a syntax error becomes an issue with the line and column. */
export function parseJsonText(text: string, file: string): JsonFileResult {
  const source = text.replace(/^\uFEFF/, '');
  try {
    return { ok: true, value: JSON.parse(source) };
  } catch (error) {
    const located = findJsonSyntaxError(source);
    // Fallback (the scanner found nothing): JSON.parse's message, cut to one line.
    const message =
      located?.message ??
      (error as Error).message
        .replace(/,? (?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, '')
        .replace(/ (in|after) JSON at position \d+[\s\S]*$/, '')
        .replace(/\s+/g, ' ');
    return {
      ok: false,
      issue: {
        severity: 'error',
        file,
        path: '$',
        ...lineAndColumn(source, located?.offset ?? source.length),
        message: `not valid JSON: ${message}`,
      },
    };
  }
}

/** Largest JSON file read (task configs, index files, asset maps are a few KiB to a few MiB). */
const JSON_FILE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Reads and parses a JSON file; a missing file or bad JSON becomes an issue naming the file. Only a
 * regular file is read (opened without blocking, checked on the open descriptor): a FIFO, a device
 * (`/dev/zero`) or a socket is refused at once, as is a file over 64 MiB.
 */
export async function readJsonFile(file: string): Promise<JsonFileResult> {
  const refuse = (message: string): JsonFileResult => ({
    ok: false,
    issue: { severity: 'error', file, path: '$', message },
  });
  let text: string;
  try {
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = await handle.stat();
      if (info.isDirectory()) return refuse('is a directory, expected a JSON file');
      if (!info.isFile()) return refuse('not a regular file (FIFO, device or socket): refused');
      if (info.size > JSON_FILE_MAX_BYTES)
        return refuse(
          `is ${info.size} bytes, over the ${JSON_FILE_MAX_BYTES} byte cap of a JSON file`,
        );
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return refuse(
      code === 'ENOENT'
        ? 'file not found'
        : code === 'EISDIR'
          ? 'is a directory, expected a JSON file'
          : `cannot read file (${code ?? (error as Error).message})`,
    );
  }
  return parseJsonText(text, file);
}
