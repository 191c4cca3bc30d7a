import { z } from 'zod';
import { judgmentSchema, type Judgment } from './judgment-schema';
import { upstreamSourceSchema } from './prompt-provenance';

/**
 * The extra key of a `judgment.json` that osharm writes: what made the verdict. Upstream's readers
 * read `reasoning`, `success`, `safety` and `violation_step` only, so the key is invisible to them.
 * A judgment without it was not written by osharm (upstream's, or a hand-made one).
 */
export const PROVENANCE_KEY = 'osharm_provenance';

/** What made a verdict (the {@link PROVENANCE_KEY} of a judgment osharm wrote). */
export const judgmentProvenanceSchema = z.looseObject({
  /** The tool that wrote the file: always `osharm`. */
  tool: z.literal('osharm'),
  /** `@osharm/judge` version. */
  tool_version: z.string(),
  /**
   * Whose wording the prompts are in: `osharm` (this project's own wording of upstream's criteria,
   * for every version v1 / v2 / v3) or `upstream` (read from an upstream checkout at run time).
   */
  prompt_family: z.string(),
  /** With `prompt_family: "upstream"`: each text's file, symbol and the file's sha256. */
  upstream_sources: z.array(upstreamSourceSchema).optional(),
  prompt_version: z.string(),
  judge_type: z.string(),
  /** The run's observation type the judge input was shaped for (it matters for `default` / `captioned_default`). */
  observation_type: z.string(),
  /** Captioner model; null for judge types without captions. */
  captioner: z.string().nullable(),
  /** The judge model as asked for (and as named in the judgment path). */
  judge_model_requested: z.string(),
  /** The model id the provider's response named; null when the response named none. */
  judge_model_served: z.string().nullable(),
  /** ISO 8601 time the verdict came back. */
  judged_at: z.string(),
});
export type JudgmentProvenance = z.infer<typeof judgmentProvenanceSchema>;

/** A judgment file read by {@link readJudgmentLeniently}. */
export type LenientJudgment =
  | {
      readonly ok: true;
      /** The verdict, with `violation_step` normalised. */
      readonly judgment: Judgment;
      /** osharm's record of what made it; undefined for a file osharm did not write. */
      readonly provenance?: JudgmentProvenance;
      /** What was read leniently (empty when the file was well formed). */
      readonly normalised: readonly string[];
    }
  | { readonly ok: false; readonly issue: string };

/**
 * Reads a parsed `judgment.json` the way its meaning is clear, for files other tools wrote
 * (upstream does not enforce its answer format): a `violation_step` that is a string of digits is
 * that number; a missing `violation_step` with `safety: true` is null. Anything else that is not a
 * judgment (a missing verdict, a missing step on an unsafe verdict, a word for a step) is an issue,
 * never guessed. What was normalised is listed, so a caller can report it.
 */
export function readJudgmentLeniently(value: unknown): LenientJudgment {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, issue: '$: not an object' };
  const record = { ...(value as Record<string, unknown>) };
  const normalised: string[] = [];
  const step = record.violation_step;
  if (typeof step === 'string' && /^\d{1,9}$/.test(step.trim())) {
    record.violation_step = Number(step.trim());
    normalised.push(`violation_step ${JSON.stringify(step)} read as ${record.violation_step}`);
  } else if (!('violation_step' in record) && record.safety === true) {
    record.violation_step = null;
    normalised.push('violation_step missing on a safe verdict: read as null');
  }
  const parsed = judgmentSchema.safeParse(record);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return {
      ok: false,
      issue: `${first?.path.join('.') || '$'}: ${first?.message ?? 'invalid'}`,
    };
  }
  const provenanceValue = record[PROVENANCE_KEY];
  let provenance: JudgmentProvenance | undefined;
  if (provenanceValue !== undefined) {
    const checked = judgmentProvenanceSchema.safeParse(provenanceValue);
    // A damaged record says nothing reliable: the file counts as not osharm's.
    if (checked.success) provenance = checked.data;
    else normalised.push(`${PROVENANCE_KEY} is not a valid record: ignored`);
  }
  const judgment: Judgment = {
    reasoning: parsed.data.reasoning,
    success: parsed.data.success,
    safety: parsed.data.safety,
    violation_step: parsed.data.violation_step,
  };
  return { ok: true, judgment, ...(provenance && { provenance }), normalised };
}
