/**
 * Serializes a JSON value the way Python's `json.dumps` does with its defaults, the format upstream
 * writes `traj.jsonl` and `better_log.json` in: `", "` and `": "` separators, non-ASCII escaped as
 * `\uXXXX` (`ensure_ascii`), keys in insertion order. With `indent`, Python's indented layout.
 * Integers are written as JavaScript writes them (`1`, not Python's `1.0` for a float that holds
 * an integer); readers parse both the same. Other numbers follow Python's `repr` (`1e-05`).
 */
export function toPythonJson(value: unknown, options: { indent?: number } = {}): string {
  return write(value, options.indent, '');
}

function escapeString(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, char => {
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/**
 * A number as Python's `repr(float)` writes it, for non-integers: both use the shortest digits that
 * round-trip, but Python switches to exponent notation below 1e-4 (JavaScript below 1e-6) and pads
 * the exponent to two digits (`1e-07`). Non-integers are never >= 2^53, so large values do not
 * differ. Integers are written as JavaScript writes them.
 */
function formatNumber(value: number): string {
  if (Number.isInteger(value) || Math.abs(value) >= 1e-4) return String(value);
  const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
  const sign = exponent.startsWith('-') ? '-' : '+';
  return `${mantissa}e${sign}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
}

function write(value: unknown, indent: number | undefined, current: string): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return escapeString(value);
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
    return formatNumber(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return write((value as { toJSON: () => unknown }).toJSON(), indent, current);
  }
  const inner = indent === undefined ? '' : current + ' '.repeat(indent);
  const open = indent === undefined ? '' : `\n${inner}`;
  const close = indent === undefined ? '' : `\n${current}`;
  const separator = indent === undefined ? ', ' : `,\n${inner}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${open}${value.map(item => write(item, indent, inner)).join(separator)}${close}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(
    ([, item]) => item !== undefined && typeof item !== 'function',
  );
  if (entries.length === 0) return '{}';
  return `{${open}${entries
    .map(([key, item]) => `${escapeString(key)}: ${write(item, indent, inner)}`)
    .join(separator)}${close}}`;
}
