/** `json.dumps(value)` as Python writes it: `", "` and `": "` separators, non-ASCII as `\uXXXX`. */
export function pythonJsonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, item]) => `${pythonJsonDumps(key)}: ${pythonJsonDumps(item)}`)
      .join(', ')}}`;
  return JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    char => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
