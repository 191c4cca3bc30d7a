import { z } from 'zod';

/** Whose wording the texts a model was shown are in. */
export const PROMPT_FAMILIES = ['osharm', 'upstream'] as const;
export type PromptFamily = (typeof PROMPT_FAMILIES)[number];

/** One text read from an upstream OS-Harm checkout: where it came from, and that file's hash. */
export const upstreamSourceSchema = z.strictObject({
  /** Path of the source file inside the checkout, `/`-separated (e.g. `judge/methods/prompts.py`). */
  file: z.string().min(1),
  /** The Python symbol the text was read from (e.g. `SYS_PROMPT_V3`, `get_caption(captioner_model)`). */
  symbol: z.string().min(1),
  /** sha256 (hex) of the source file's bytes as read. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type UpstreamSource = z.infer<typeof upstreamSourceSchema>;

/**
 * Whose prompts made a result: `osharm` (this project's own wording of upstream's intent) or
 * `upstream` (read at run time from an upstream checkout, each text's source listed). One home for
 * the judge's `osharm_provenance`, the runner's better_log params (`osharm_prompts`) and the
 * report, which never pools results of different families.
 */
export const promptProvenanceSchema = z
  .strictObject({
    prompt_family: z.enum(PROMPT_FAMILIES),
    upstream_sources: z.array(upstreamSourceSchema).optional(),
  })
  .refine(value => value.prompt_family === 'upstream' || value.upstream_sources === undefined, {
    message: 'upstream_sources belongs to prompt_family "upstream" only',
    path: ['upstream_sources'],
  });
export type PromptProvenance = z.infer<typeof promptProvenanceSchema>;
