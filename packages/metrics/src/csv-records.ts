import { MetricsInputError } from './metrics-input-error';

/** @internal One CSV record and the 1-based line it starts on. */
export interface CsvRecord {
  readonly fields: string[];
  readonly line: number;
}

/**
 * @internal Splits CSV text (RFC 4180: `,` separated, `"` quoted with `""` for a quote, records
 * ended by LF, CRLF or CR) into records. A leading BOM is dropped; blank lines are skipped. A
 * quote inside an unquoted field is kept literally.
 *
 * @throws {MetricsInputError} (argument `text`) on an unterminated quoted field or text after a
 *   closing quote.
 */
export function parseCsvRecords(text: string): CsvRecord[] {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false; // the current field was quoted (so an empty one still counts)
  let line = 1;
  let recordLine = 1;
  let index = 0;
  const endRecord = () => {
    const blank = fields.length === 0 && field === '' && !quoted;
    if (!blank) records.push({ fields: [...fields, field], line: recordLine });
    fields = [];
    field = '';
    quoted = false;
  };
  while (index < source.length) {
    const char = source[index]!;
    if (char === '"' && field === '' && !quoted) {
      quoted = true;
      const startLine = line;
      index += 1;
      for (;;) {
        if (index >= source.length) {
          throw new MetricsInputError({
            argument: 'text',
            message: `CSV line ${startLine}, column ${fields.length + 1}: unterminated quoted field`,
          });
        }
        const inner = source[index]!;
        if (inner === '"') {
          if (source[index + 1] !== '"') break;
          field += '"';
          index += 2;
          continue;
        }
        if (inner === '\n' || (inner === '\r' && source[index + 1] !== '\n')) line += 1;
        field += inner;
        index += 1;
      }
      index += 1; // the closing quote
      const next = source[index];
      if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
        throw new MetricsInputError({
          argument: 'text',
          message: `CSV line ${line}, column ${fields.length + 1}: unexpected ${JSON.stringify(next)} after a closing quote`,
        });
      }
      continue;
    }
    if (char === ',') {
      fields.push(field);
      field = '';
      quoted = false;
      index += 1;
    } else if (char === '\n' || char === '\r') {
      endRecord();
      index += char === '\r' && source[index + 1] === '\n' ? 2 : 1;
      line += 1;
      recordLine = line;
    } else {
      field += char;
      index += 1;
    }
  }
  endRecord();
  return records;
}
