// Writes schemas/<name>.schema.json from the built package (run by `build`, after tsup).
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateJsonSchemas } from '../dist/artifacts.js';

const out = new URL('../schemas/', import.meta.url).pathname;
mkdirSync(out, { recursive: true });
for (const [name, schema] of Object.entries(generateJsonSchemas())) {
  const file = join(out, `${name}.schema.json`);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(schema, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}
