import { createCaptioner, DEFAULT_CAPTION_MODEL, type Captioner } from './captioner';
import { JudgeSettingError } from './judge-errors';
import type { ImageOptions } from './judge-images';
import type { ModelV1 } from '@osharm/models';
import { createEndpointModel } from './model-endpoint';
import type { UpstreamJudgeTexts } from './upstream-judge-texts';

/**
 * A captioner from the option: a ready captioner, a model, or a model name (routed). With
 * upstream's texts it sends upstream's prompt (default model: upstream's), and a ready captioner
 * must have been made with that prompt.
 */
export function resolveCaptioner(
  option: Captioner | ModelV1 | string | undefined,
  images?: ImageOptions,
  upstream?: UpstreamJudgeTexts,
): Captioner {
  const prompt = upstream?.captioner.prompt.text;
  if (option !== undefined && typeof option === 'object' && 'caption' in option) {
    if (upstream && option.prompt !== prompt)
      throw new JudgeSettingError({
        message: `captioner ${option.modelId} was not made with upstream's captioner prompt (pass a model or a model name with an upstream checkout)`,
      });
    return option;
  }
  const model =
    typeof option === 'object'
      ? option
      : createEndpointModel(
          'captioner',
          option ?? upstream?.captioner.model ?? DEFAULT_CAPTION_MODEL,
        );
  return createCaptioner({
    model,
    images,
    ...(upstream && {
      prompt,
      maxOutputTokens: upstream.captioner.maxCompletionTokens,
      trimCaption: false,
      // get_caption's request: no image detail, the limit as `max_completion_tokens`.
      detail: null,
      maxTokensField: 'max_completion_tokens' as const,
    }),
  });
}
