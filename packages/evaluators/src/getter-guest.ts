import { EvaluationError } from './evaluator-error';
import { throwIfAborted } from './getter-types';
import type { Getter, GetterConfigInput, GetterContext } from './getter-types';

/** Runs a guest call; any failure but an abort gives `null`, as upstream's `None` on non-200. */
async function orNull<T>(context: GetterContext, call: () => Promise<T>): Promise<T | null> {
  try {
    return await call();
  } catch {
    throwIfAborted(context);
    return null;
  }
}

function commandOf(config: GetterConfigInput): { command: string | string[]; shell: boolean } {
  const command = config['command'];
  const isCommand =
    typeof command === 'string' ||
    (Array.isArray(command) && command.every(part => typeof part === 'string'));
  if (!isCommand) {
    throw new EvaluationError({
      message: `${config.type} needs a "command" string or list of strings`,
      subject: config.type,
    });
  }
  return { command: command as string | string[], shell: config['shell'] === true };
}

/**
 * `vm_command_line` (upstream `getters/general.py`): `POST /execute {command, shell}` (shell
 * defaults to false) and returns the answer's `output` (stdout, whatever the exit code). A failed
 * call (non-2xx, or no answer) gives `null`.
 */
export const getVmCommandLine: Getter = async (context, config) => {
  const { command, shell } = commandOf(config);
  const answer = await orNull(context, () =>
    context.client.execute(command, { shell, abortSignal: context.abortSignal }),
  );
  return answer === null ? null : answer.output;
};

/** `vm_command_error`: as `vm_command_line`, but returns the answer's `error` (stderr). */
export const getVmCommandError: Getter = async (context, config) => {
  const { command, shell } = commandOf(config);
  const answer = await orNull(context, () =>
    context.client.execute(command, { shell, abortSignal: context.abortSignal }),
  );
  return answer === null ? null : answer.error;
};

/** `vm_terminal_output`: `GET /terminal`'s output, or `null`. */
export const getVmTerminalOutput: Getter = async context =>
  orNull(context, () => context.client.terminalOutput({ abortSignal: context.abortSignal }));

/** `accessibility_tree` (upstream `getters/misc.py`): the raw a11y XML of `/accessibility`, or `null`. */
export const getAccessibilityTree: Getter = async context =>
  orNull(context, () => context.client.accessibilityTree({ abortSignal: context.abortSignal }));

/**
 * `list_directory` (upstream `getters/info.py`): the `/list_directory` tree of `path`
 * (`{type, name, children}`), or `null`.
 */
export const getListDirectory: Getter = async (context, config) => {
  const path = config['path'];
  if (typeof path !== 'string') {
    throw new EvaluationError({
      message: 'list_directory needs a "path" string',
      subject: 'list_directory',
    });
  }
  return orNull(context, () =>
    context.client.listDirectory(path, { abortSignal: context.abortSignal }),
  );
};

/** `rule` (upstream `getters/misc.py`): the config's `rules`, unchanged. */
export const getRule: Getter = async (_context, config) => {
  if (!Object.hasOwn(config, 'rules')) {
    throw new EvaluationError({ message: 'rule needs a "rules" field', subject: 'rule' });
  }
  return config['rules'];
};
