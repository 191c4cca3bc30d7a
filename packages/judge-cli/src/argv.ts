/**
 * Accepts upstream's snake_case flag spellings (`--judge_type`, `--test_config_base_dir`) by
 * rewriting them to the kebab-case ones osharm defines. Only the flag name of a `--flag` or
 * `--flag=value` token changes; values and everything after a bare `--` are left alone. Shared by
 * `osharm-batch-judge` and every `osharm` command (apps/cli imports it from here).
 */
export function normalizeArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  let passthrough = false;
  for (const token of argv) {
    if (passthrough || !token.startsWith('--') || token === '--') {
      if (token === '--') passthrough = true;
      out.push(token);
      continue;
    }
    const equals = token.indexOf('=');
    const name = equals === -1 ? token : token.slice(0, equals);
    const rest = equals === -1 ? '' : token.slice(equals);
    out.push(`--${name.slice(2).replaceAll('_', '-')}${rest}`);
  }
  return out;
}
