/**
 * What the vendors refuse, per @osharm/model-spec's capability table: the stand-in answers 400
 * where the vendor would (sampling a model does not take, a forced tool choice where thinking is
 * always on, a computer tool the model does not accept, too many or too large images, OpenAI
 * reasoning models' `max_tokens`), and — when asked — 404 for a retired model. A model the table
 * lacks is taken as it is sent: the table's assumptions for unknown models are osharm's, not the
 * vendor's.
 */
import { modelCapabilities, modelLifecycle, type ModelCapabilities } from '@osharm/model-spec';
import { HttpError, isRecord } from './http-exchange';
import type { DescribedRequest } from './model-call';

/** Refusal options of the stand-in. */
export interface RefusalOptions {
  /**
   * Answer 404 for a model the SDKs' data says is retired on this day (`true`: today). Off by
   * default, so tests that name a model by habit keep working after its end of life.
   */
  readonly refuseRetired?: boolean | Date;
}

function samplingRefusal(
  caps: ModelCapabilities,
  body: Record<string, unknown>,
): string | undefined {
  const temperature = body.temperature;
  const topP = body.top_p;
  const sent = [
    ...(temperature !== undefined ? [['temperature', temperature] as const] : []),
    ...(topP !== undefined ? [['top_p', topP] as const] : []),
  ];
  if (sent.length === 0) return undefined;
  switch (caps.sampling) {
    case 'none':
      return `${sent[0]![0]}: this model does not accept sampling parameters`;
    case 'default-only': {
      const other = sent.find(([, value]) => value !== 1);
      return other ? `${other[0]}: this model accepts only the default value 1` : undefined;
    }
    case 'one-of':
      return sent.length > 1
        ? '`temperature` and `top_p` cannot both be specified for this model; use only one'
        : undefined;
    case 'any':
      return undefined;
  }
}

function decodedLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/** Base64 payloads of the images of a request (Anthropic blocks, OpenAI data URLs, Gemini inlineData). */
function imagePayloads(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) imagePayloads(item, out);
    return out;
  }
  if (!isRecord(value)) return out;
  if (value.type === 'image' && isRecord(value.source) && typeof value.source.data === 'string')
    out.push(value.source.data);
  else if (value.type === 'image_url' && isRecord(value.image_url)) {
    const url = value.image_url.url;
    if (typeof url === 'string') out.push(url.slice(url.indexOf(',') + 1));
  } else if (isRecord(value.inlineData) && typeof value.inlineData.data === 'string')
    out.push(value.inlineData.data);
  else for (const item of Object.values(value)) imagePayloads(item, out);
  return out;
}

function imageRefusal(caps: ModelCapabilities, request: DescribedRequest): string | undefined {
  const images = imagePayloads(request.messages);
  if (images.length > caps.images.maxImages)
    return `too many images: ${images.length} (at most ${caps.images.maxImages} per request)`;
  const largest = Math.max(0, ...images.map(decodedLength));
  if (largest > caps.images.maxImageBytes)
    return `image exceeds ${caps.images.maxImageBytes} bytes maximum: ${largest} bytes`;
  return undefined;
}

function computerToolRefusal(caps: ModelCapabilities, tools: unknown): string | undefined {
  if (!Array.isArray(tools)) return undefined;
  for (const [index, tool] of tools.entries()) {
    if (!isRecord(tool) || typeof tool.type !== 'string') continue;
    if (!tool.type.startsWith('computer')) continue;
    if (!caps.computerTools.includes(tool.type))
      return `tools.${index}.type: '${tool.type}' is not supported by ${caps.modelId}`;
  }
  return undefined;
}

/**
 * The 400 a vendor answers to `request` (or 404 for a retired model, when asked).
 * @throws {HttpError}
 */
export function refuseAsVendor(request: DescribedRequest, options: RefusalOptions = {}): void {
  const { vendor, body, model } = request;
  if (options.refuseRetired) {
    const today = options.refuseRetired === true ? new Date() : options.refuseRetired;
    if (modelLifecycle(model, today).state === 'retired')
      throw new HttpError(
        404,
        vendor === 'anthropic'
          ? `model: ${model}`
          : `The model \`${model}\` does not exist or you do not have access to it.`,
      );
  }
  const caps = modelCapabilities(model, vendor);
  if (!caps.known) return;
  const responses = request.endpoint === '/v1/responses';
  const refusal =
    (vendor === 'gemini' ? undefined : samplingRefusal(caps, body)) ??
    (vendor === 'openai' &&
    !responses &&
    caps.thinking === 'reasoning' &&
    body.max_tokens !== undefined
      ? "max_tokens: not supported with this model; use 'max_completion_tokens' instead"
      : undefined) ??
    (vendor === 'anthropic' &&
    caps.thinking === 'always' &&
    isRecord(body.tool_choice) &&
    (body.tool_choice.type === 'tool' || body.tool_choice.type === 'any')
      ? 'tool_choice: thinking is always on for this model, and it may not be on when tool_choice forces tool use'
      : undefined) ??
    (vendor !== 'gemini' ? computerToolRefusal(caps, body.tools) : undefined) ??
    imageRefusal(caps, request);
  if (refusal) throw new HttpError(400, refusal);
}
