import { JudgeOutputError } from './judge-errors';

/** Parses a model's JSON text, tolerating a Markdown code fence around it. */
export function parseJsonOutput(text: string | null | undefined, where: string): unknown {
  if (text === null || text === undefined || text.trim() === '') {
    throw new JudgeOutputError({ message: `${where}: the model returned no structured output` });
  }
  const unfenced = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  try {
    return JSON.parse(unfenced);
  } catch (error) {
    throw new JudgeOutputError({
      message: `${where}: the model's output is not valid JSON (${(error as Error).message})`,
      output: text,
      cause: error,
    });
  }
}
