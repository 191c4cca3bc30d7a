import { parseCsvRecords } from './csv-records';
import { MetricsInputError } from './metrics-input-error';
import { normalizeTrajectoryKey } from './trajectory-key';

/** A human's verdict on one trajectory; a field left out was not labelled. */
export interface HumanLabel {
  /**
   * The trajectory dir, relative to the results root, e.g.
   * `pyautogui/screenshot_a11y_tree/o4-mini/os/_ransomware`. It matches a trajectory whose `key`
   * ends with it (whole segments; `/` and `\` alike).
   */
  readonly key: string;
  /** True if the agent fully completed its task. */
  readonly success?: boolean;
  /** True if every action was safe (`false`: unsafe), as in `judgment.json`. */
  readonly safety?: boolean;
}

/** Text formats {@link parseHumanLabels} reads. */
export type HumanLabelFormat = 'csv' | 'json';

const truthy = new Set(['true', '1', 'yes']);
const falsy = new Set(['false', '0', 'no']);
const expected = 'expected true, false, 1, 0, yes or no';

/**
 * Reads human labels.
 *
 * - `csv`: a header row naming `trajectory` (or `key`) and at least one of `success` and `safety`,
 *   in any order (other columns are ignored; names are case-insensitive), then one row per
 *   trajectory. Values are `true` / `false` / `1` / `0` / `yes` / `no` (any case, surrounding
 *   spaces ignored); an empty cell means "not labelled".
 * - `json`: an object keyed by trajectory dir, `{ "<dir>": { "success": true, "safety": false } }`,
 *   or an array of `{ "trajectory": "<dir>", "success": …, "safety": … }` (`key` works for
 *   `trajectory`). Values are booleans, 0 / 1, or the CSV words; `null` or a missing field means
 *   "not labelled". Other fields are ignored.
 *
 * @throws {MetricsInputError} (argument `text`) naming the row (CSV, where the header is row 1)
 *   or JSON path, and the column or field: unreadable text, a missing column, a bad value, an
 *   empty or duplicate trajectory (after normalising separators); argument `format` for an
 *   unknown format.
 */
export function parseHumanLabels(text: string, format: HumanLabelFormat): HumanLabel[] {
  if (format === 'csv') return parseCsvLabels(text);
  if (format === 'json') return parseJsonLabels(text);
  throw new MetricsInputError({
    argument: 'format',
    message: `format must be 'csv' or 'json', got ${JSON.stringify(format)}`,
  });
}

function fail(message: string): never {
  throw new MetricsInputError({ argument: 'text', message });
}

function parseCsvLabels(text: string): HumanLabel[] {
  const records = parseCsvRecords(text);
  const [header, ...rows] = records;
  if (!header) fail('labels CSV is empty: expected a header row "trajectory,success,safety"');
  const names = header.fields.map(name => name.trim().toLowerCase());
  const where = (row: number, line: number) =>
    row === line ? `labels CSV row ${row}` : `labels CSV row ${row} (line ${line})`;
  const seenNames = new Map<string, number>();
  names.forEach((name, index) => {
    if (name !== '' && seenNames.has(name)) {
      fail(
        `${where(1, header.line)}: column "${name}" appears twice (columns ${seenNames.get(name)! + 1} and ${index + 1})`,
      );
    }
    seenNames.set(name, index);
  });
  const keyIndex = seenNames.get('trajectory') ?? seenNames.get('key');
  if (keyIndex === undefined) {
    fail(`${where(1, header.line)}: no "trajectory" column (header: ${header.fields.join(',')})`);
  }
  const successIndex = seenNames.get('success');
  const safetyIndex = seenNames.get('safety');
  if (successIndex === undefined && safetyIndex === undefined) {
    fail(
      `${where(1, header.line)}: needs a "success" or "safety" column (header: ${header.fields.join(',')})`,
    );
  }
  const keyName = names[keyIndex]!;
  const labels: HumanLabel[] = [];
  const seenKeys = new Map<string, number>();
  rows.forEach(({ fields, line }, index) => {
    const row = index + 2;
    const at = where(row, line);
    if (fields.length !== names.length) {
      fail(`${at}: ${fields.length} cells, but the header has ${names.length} columns`);
    }
    const key = fields[keyIndex]!.trim();
    if (key === '') fail(`${at}, column "${keyName}": empty trajectory`);
    const normalized = normalizeTrajectoryKey(key);
    const earlier = seenKeys.get(normalized);
    if (earlier !== undefined)
      fail(
        `${at}, column "${keyName}": trajectory "${key}" was already labelled in row ${earlier}`,
      );
    seenKeys.set(normalized, row);
    const cell = (column: 'success' | 'safety', cellIndex: number | undefined) => {
      if (cellIndex === undefined) return undefined;
      const raw = fields[cellIndex]!;
      const value = parseFlag(raw);
      if (value === 'invalid')
        fail(`${at}, column "${column}": ${expected}, got ${JSON.stringify(raw)}`);
      return value as boolean | undefined;
    };
    const success = cell('success', successIndex);
    const safety = cell('safety', safetyIndex);
    labels.push({
      key,
      ...(success !== undefined && { success }),
      ...(safety !== undefined && { safety }),
    });
  });
  return labels;
}

function parseJsonLabels(text: string): HumanLabel[] {
  let data: unknown;
  try {
    data = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch (error) {
    fail(`labels JSON is not valid JSON: ${(error as Error).message}`);
  }
  const entries: [path: string, key: unknown, value: unknown][] = [];
  if (Array.isArray(data)) {
    data.forEach((entry, index) => {
      const path = `labels JSON [${index}]`;
      if (!isObject(entry)) fail(`${path}: expected an object, got ${describe(entry)}`);
      const record = entry as Record<string, unknown>;
      const field = 'key' in record && !('trajectory' in record) ? 'key' : 'trajectory';
      if (typeof record[field] !== 'string') {
        fail(
          `${path}.${field}: expected the trajectory dir as a string, got ${describe(record[field])}`,
        );
      }
      entries.push([path, record[field], record]);
    });
  } else if (isObject(data)) {
    for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
      const path = `labels JSON [${JSON.stringify(key)}]`;
      if (!isObject(value))
        fail(`${path}: expected an object with success / safety, got ${describe(value)}`);
      entries.push([path, key, value]);
    }
  } else {
    fail(
      `labels JSON: expected an object keyed by trajectory dir or an array, got ${describe(data)}`,
    );
  }
  const labels: HumanLabel[] = [];
  const seenKeys = new Map<string, string>();
  for (const [path, rawKey, value] of entries) {
    const key = (rawKey as string).trim();
    if (key === '') fail(`${path}: empty trajectory`);
    const normalized = normalizeTrajectoryKey(key);
    const earlier = seenKeys.get(normalized);
    if (earlier !== undefined)
      fail(`${path}: trajectory "${key}" was already labelled at ${earlier}`);
    seenKeys.set(normalized, path);
    const record = value as Record<string, unknown>;
    const field = (name: 'success' | 'safety') => {
      const raw = record[name];
      if (raw === undefined || raw === null) return undefined;
      const parsed =
        typeof raw === 'boolean'
          ? raw
          : typeof raw === 'number' || typeof raw === 'string'
            ? parseFlag(String(raw))
            : 'invalid';
      if (parsed === undefined || parsed === 'invalid') {
        fail(
          `${path}.${name}: expected a boolean or one of 0, 1, "true", "false", "yes", "no"; got ${describe(raw)}`,
        );
      }
      return parsed as boolean;
    };
    const success = field('success');
    const safety = field('safety');
    labels.push({
      key,
      ...(success !== undefined && { success }),
      ...(safety !== undefined && { safety }),
    });
  }
  return labels;
}

/** A label word as a boolean; undefined for an empty cell; 'invalid' otherwise. */
function parseFlag(raw: string): boolean | undefined | 'invalid' {
  const word = raw.trim().toLowerCase();
  if (word === '') return undefined;
  if (truthy.has(word)) return true;
  if (falsy.has(word)) return false;
  return 'invalid';
}

const isObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const describe = (value: unknown): string =>
  value === undefined ? 'nothing' : Array.isArray(value) ? 'an array' : JSON.stringify(value);
