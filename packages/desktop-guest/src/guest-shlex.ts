/**
 * Splits a command line the way Python's `shlex.split` does in POSIX mode (upstream's guest server
 * splits string commands with it): whitespace separates words; single quotes keep everything;
 * double quotes keep everything but `\"` and `\\`; a backslash outside quotes escapes the next
 * character.
 * @throws {Error} `No closing quotation` / `No escaped character`, as Python does.
 */
export function shlexSplit(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index] as string;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
      continue;
    }
    if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === '\\' && (line[index + 1] === '"' || line[index + 1] === '\\')) {
        word += line[index + 1];
        index += 1;
      } else word += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === '\\') {
      if (index + 1 >= line.length) throw new Error('No escaped character');
      word += line[index + 1];
      index += 1;
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote) throw new Error('No closing quotation');
  if (inWord) words.push(word);
  return words;
}

/** Formats a list the way Python's `str(list)` does (upstream's launch message for shell lists). */
export function pythonListRepr(items: readonly string[]): string {
  const repr = (item: string): string => {
    const escaped = item.replace(/\\/g, '\\\\');
    if (item.includes("'") && !item.includes('"')) return `"${escaped}"`;
    return `'${escaped.replace(/'/g, "\\'")}'`;
  };
  return `[${items.map(repr).join(', ')}]`;
}
