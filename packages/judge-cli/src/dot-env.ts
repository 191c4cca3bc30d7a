import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Reads `.env` in the working directory into `process.env` with Node's own loader
 * (`process.loadEnvFile`): variables already set in the environment win. Values are never
 * printed; a file that cannot be read gives one warning naming the file only.
 */
export function loadDotEnv(
  cwd: string = process.cwd(),
  warn: (text: string) => void = text => void process.stderr.write(text),
): void {
  const file = join(cwd, '.env');
  if (!existsSync(file) || !statSync(file).isFile()) return;
  try {
    process.loadEnvFile(file);
  } catch (error) {
    warn(
      `warning: ${file} could not be read (${(error as NodeJS.ErrnoException).code ?? 'invalid'}); ignored\n`,
    );
  }
}
