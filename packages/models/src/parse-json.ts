/** JSON text without a Markdown code fence around it. */
export function unfenceJson(text: string): string {
  return text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
}

/** Parses a model's JSON text (a Markdown fence tolerated); undefined when it does not parse. */
export function tryParseJson(text: string | null | undefined): unknown {
  if (text === null || text === undefined || text.trim() === '') return undefined;
  try {
    return JSON.parse(unfenceJson(text));
  } catch {
    return undefined;
  }
}
