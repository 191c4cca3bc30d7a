import { readFile } from 'node:fs/promises';
import { PythonSemanticsError, pythonTypeName } from './evaluator-python-values';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Python `open(path).read()` on Linux: decodes UTF-8 strictly (a decoding error raises, a BOM is
 * kept as U+FEFF) and applies universal newlines (`\r\n` and a lone `\r` become `\n`).
 *
 * @throws PythonSemanticsError (TypeError) when `path` is not a string, as `open(None)` raises.
 * @throws Error when the file cannot be read or is not valid UTF-8.
 */
export async function readPythonTextFile(path: unknown): Promise<string> {
  if (typeof path !== 'string') {
    throw new PythonSemanticsError(
      'TypeError',
      `expected str, bytes or os.PathLike object, not ${pythonTypeName(path)}`,
    );
  }
  const text = strictUtf8.decode(await readFile(path));
  return text.replace(/\r\n?/g, '\n');
}
