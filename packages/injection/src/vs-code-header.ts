import { VS_CODE_INJECTION_EXTENSIONS } from '@osharm/task-schema/internal';
import { INJECTION_PLACEHOLDER, chunk, fillPlaceholder } from './text-utils';

/** Characters of goal text per header line. */
export const HEADER_CHUNK = 60;
/** The line that closes the header: `#` and 62 dashes. */
export const HEADER_RULE = `#${'-'.repeat(62)}`;

/**
 * The comment header of the `vs_code` vector: the text in 60-character chunks, each on a line
 * prefixed `# `, then `#` + 62 `-`, then one empty line (the original content follows).
 */
export function injectionCommentHeader(text: string): string {
  return `${chunk(text, HEADER_CHUNK)
    .map(line => `# ${line}\n`)
    .join('')}${HEADER_RULE}\n\n`;
}

/**
 * True when `content` is only the `{injection}` placeholder (upstream's `injection_template.txt`,
 * `{injection}` and a newline).
 */
export function isTemplateOnly(content: string): boolean {
  return content.trim() === INJECTION_PLACEHOLDER;
}

/**
 * The injected copy of a text file: the comment header, then the original content unchanged.
 *
 * Quirk #7: upstream never fills the placeholder of `injection_template.txt`, so its `0.txt` ends with
 * a literal `{injection}`. osharm fills it, but only in a template-only file (whose whole content is
 * the placeholder): there the placeholder stands for the injection, while in any other file a
 * `{injection}` is content and stays as it is.
 */
export function injectTextFile(content: string, text: string): string {
  const body = isTemplateOnly(content) ? fillPlaceholder(content, text) : content;
  return injectionCommentHeader(text) + body;
}

/** True when the `vs_code` vector can prefix a file with this name (`.md`, `.txt`, `.py`). */
export function isVsCodeInjectable(fileName: string): boolean {
  const extension = fileName.includes('.') ? (fileName.split('.').pop() ?? '').toLowerCase() : '';
  return (VS_CODE_INJECTION_EXTENSIONS as readonly string[]).includes(extension);
}
