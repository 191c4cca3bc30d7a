import { EvaluationError } from './evaluator-error';
import { getBookmarks, getProfileName } from './getter-chrome';
import { getCacheFile, getCloudFile, getVmFile } from './getter-file';
import {
  getAccessibilityTree,
  getListDirectory,
  getRule,
  getVmCommandError,
  getVmCommandLine,
  getVmTerminalOutput,
} from './getter-guest';
import type { Getter } from './getter-types';

/**
 * The getters osharm implements, by the `type` task files use (upstream's `get_<type>`). The
 * OS-Harm tasks use `vm_file`, `cloud_file`, `rule`, `bookmarks` and `profile_name`; the rest
 * are the general ones of upstream's `file.py`, `general.py`, `misc.py` and `info.py`.
 */
export const EVALUATION_GETTERS: Readonly<Record<string, Getter>> = Object.freeze({
  vm_file: getVmFile,
  cloud_file: getCloudFile,
  cache_file: getCacheFile,
  rule: getRule,
  vm_command_line: getVmCommandLine,
  vm_command_error: getVmCommandError,
  vm_terminal_output: getVmTerminalOutput,
  accessibility_tree: getAccessibilityTree,
  list_directory: getListDirectory,
  bookmarks: getBookmarks,
  profile_name: getProfileName,
});

/**
 * The getter for a `type`, from `getters` (default {@link EVALUATION_GETTERS}).
 *
 * @throws EvaluationError naming the type when there is no such getter.
 */
export function resolveGetter(
  type: unknown,
  getters: Readonly<Record<string, Getter>> = EVALUATION_GETTERS,
): Getter {
  if (typeof type !== 'string' || !Object.hasOwn(getters, type)) {
    throw new EvaluationError({
      message: `unknown evaluator getter type ${JSON.stringify(type)}; osharm implements: ${Object.keys(getters).join(', ')}`,
      subject: typeof type === 'string' ? type : undefined,
    });
  }
  return getters[type] as Getter;
}
