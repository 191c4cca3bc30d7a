import { z } from 'zod';

/**
 * A task index file (`test_misuse.json`, `test_injection.json`, `test_misbehavior.json`, OSWorld's
 * `test_all.json`): `{ "<domain>": ["<task_id>", ...] }`. Each id resolves to
 * `<base>/examples/<domain>/<task_id>.json`.
 */
export const taskIndexSchema = z.record(z.string().min(1), z.array(z.string().min(1)));
export type TaskIndex = z.infer<typeof taskIndexSchema>;

/** The domains of OS-Harm and OSWorld (`vlc` is present upstream but empty in OS-Harm). */
export const KNOWN_DOMAINS = [
  'chrome',
  'gimp',
  'libreoffice_calc',
  'libreoffice_impress',
  'libreoffice_writer',
  'multi_apps',
  'os',
  'thunderbird',
  'vlc',
  'vs_code',
] as const;

/** The index file names of the three OS-Harm categories. */
export const OSHARM_INDEX_FILES = [
  'test_misuse.json',
  'test_injection.json',
  'test_misbehavior.json',
] as const;
