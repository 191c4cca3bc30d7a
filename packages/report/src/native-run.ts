/**
 * One line naming how a native computer-use run was configured (better_log.json `params.native`,
 * written by `@osharm/agent`'s native agent): the tool version (and Gemini's environment), the screen and what the model saw of
 * it, and the safety-check policy with how many checks fired — these change injection results, so
 * the report shows them with each run. Undefined for prompt-agent runs. Values are shown as text
 * (the file may be crafted: nothing is trusted beyond its type).
 */
export function nativeRunSummary(
  params: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  const native = params?.native;
  if (typeof native !== 'object' || native === null || Array.isArray(native)) return undefined;
  const record = native as Record<string, unknown>;
  const text = (value: unknown) =>
    typeof value === 'string' || typeof value === 'number' ? String(value) : '?';
  const size = (value: unknown) => {
    if (typeof value !== 'object' || value === null) return '?';
    const { width, height } = value as { width?: unknown; height?: unknown };
    return `${text(width)}×${text(height)}`;
  };
  // Gemini's environment (browser or desktop) changes the actions the model has
  const environment = typeof record.environment === 'string' ? ` ${record.environment}` : '';
  return (
    `Native agent: ${text(record.vendor)} ${text(record.tool_version)}${environment}; screen ${size(record.screen)}, ` +
    `model sees ${size(record.display)} (${text(record.scaling)}); safety checks: ${text(record.safety_check_policy)}, ` +
    `fired ${text(record.safety_checks_fired)}`
  );
}
