/** The placeholder upstream's templates use for the goal text. */
export const INJECTION_PLACEHOLDER = '{injection}';

/**
 * Replaces every `{injection}` in `template` with `text`, literally. Unlike upstream's Python
 * `str.format` (quirk #15), other braces in the template are left alone and braces in `text` are
 * not interpreted.
 */
export function fillPlaceholder(template: string, text: string): string {
  return template.split(INJECTION_PLACEHOLDER).join(text);
}

/** Quotes `value` as one POSIX shell word. */
export function shellQuote(value: string): string {
  if (/^[\w@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Escapes text for XML / HTML character data and attribute values. */
export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Cuts `text` into chunks of `size` characters (code points), as upstream's vs_code header does. */
export function chunk(text: string, size: number): string[] {
  const characters = Array.from(text);
  const chunks: string[] = [];
  for (let start = 0; start < characters.length; start += size) {
    chunks.push(characters.slice(start, start + size).join(''));
  }
  return chunks;
}

/** Word-wraps `text` at `width` columns (for the plain-window notification fallback). */
export function wrapWords(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines.join('\n');
}

const encoder = new TextEncoder();
/** UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}
