/** Values of the placeholders an `execute` / `command` step may contain. */
export interface SetupPlaceholderValues {
  /** The guest account's password, for `sudo -S`. */
  readonly clientPassword: string;
  readonly screenWidth: number;
  readonly screenHeight: number;
}

/**
 * Replaces `{CLIENT_PASSWORD}`, `{SCREEN_WIDTH}`, `{SCREEN_HEIGHT}`, `{SCREEN_WIDTH_HALF}` and
 * `{SCREEN_HEIGHT_HALF}` (halves rounded down) in a command string or in each argument, as
 * upstream's `execute` step does before sending the command.
 */
export function substituteSetupPlaceholders<C extends string | readonly string[]>(
  command: C,
  values: SetupPlaceholderValues,
): C {
  const replacements: ReadonlyArray<readonly [string, string]> = [
    ['{CLIENT_PASSWORD}', values.clientPassword],
    // the _HALF names first: `{SCREEN_WIDTH}` is not a prefix of them, but keep upstream's order
    ['{SCREEN_WIDTH_HALF}', String(Math.floor(values.screenWidth / 2))],
    ['{SCREEN_HEIGHT_HALF}', String(Math.floor(values.screenHeight / 2))],
    ['{SCREEN_WIDTH}', String(values.screenWidth)],
    ['{SCREEN_HEIGHT}', String(values.screenHeight)],
  ];
  const substitute = (text: string) =>
    replacements.reduce(
      (result, [placeholder, value]) => result.replaceAll(placeholder, value),
      text,
    );
  return (typeof command === 'string' ? substitute(command) : command.map(substitute)) as C;
}
