import pLimit, { type LimitFunction } from 'p-limit';
import {
  createModel,
  endpointRouting,
  resolveEndpoint,
  type ModelEndpoint,
  type ModelV1,
} from '@osharm/models';
import { judgeModelError } from './judge-call';

/** The public API each vendor's SDK calls when no base URL is set. */
const VENDOR_ORIGINS: Readonly<Record<ModelEndpoint['vendor'], string>> = {
  openai: 'https://api.openai.com',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
};

/**
 * The origin (`scheme://host[:port]`) of a model endpoint, as provenance records it: never a path,
 * query or user info, so no key embedded in a URL reaches a file. `unknown` for a base URL that
 * does not parse.
 */
export function endpointOrigin(endpoint: Pick<ModelEndpoint, 'vendor' | 'baseURL'>): string {
  if (endpoint.baseURL === undefined) return VENDOR_ORIGINS[endpoint.vendor];
  try {
    const origin = new URL(endpoint.baseURL).origin;
    return origin === 'null' ? 'unknown' : origin;
  } catch {
    return 'unknown';
  }
}

/**
 * A model from a name (@osharm/models' `createModel`: the router picks the vendor), served where @osharm/models' `resolveEndpoint` says for the role
 * (`OSHARM_JUDGE_BASE_URL` / `OSHARM_CAPTIONER_BASE_URL`, then `OPENAI_BASE_URL` /
 * `ANTHROPIC_BASE_URL`, else the vendor's API), carrying the endpoint's origin.
 */
export function createEndpointModel(
  role: 'judge' | 'captioner',
  name: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ModelV1 {
  const endpoint = resolveEndpoint({ role, model: name, env });
  let model: ModelV1;
  try {
    model = createModel(name, endpointRouting(endpoint, env));
  } catch (error) {
    // A name no adapter serves (a Gemini model: native computer use only) is a setting error.
    throw judgeModelError(error);
  }
  return withEndpoint(model, {
    endpoint: endpointOrigin(endpoint),
  });
}

/**
 * The model with `endpoint` set (its origin, for provenance) and, with `limit`, every live call
 * (`generate`) made through that limiter: one limiter shared by the models of one endpoint caps
 * the requests in flight there, across trajectories and captions. Batch API calls are not limited.
 */
export function withEndpoint(
  model: ModelV1,
  options: { readonly endpoint?: string; readonly limit?: LimitFunction },
): ModelV1 {
  const { limit } = options;
  const endpoint = options.endpoint ?? model.endpoint;
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    ...(endpoint === undefined ? {} : { endpoint }),
    generate: limit ? call => limit(() => model.generate(call)) : call => model.generate(call),
    buildRequestBody: (body, imageText) => model.buildRequestBody(body, imageText),
    parseResponseBody: (body, options) => model.parseResponseBody(body, options),
    ...(model.batch && { batch: model.batch }),
  };
}

/**
 * Wraps models so that those served at one endpoint (same provider and origin) share one limiter
 * of `maxConnections` requests in flight. Models are matched by `provider` and `endpoint`; a model
 * without `endpoint` counts as its provider's default endpoint.
 */
export function connectionLimiter(maxConnections: number): (model: ModelV1) => ModelV1 {
  const limits = new Map<string, LimitFunction>();
  return model => {
    const key = `${model.provider} ${model.endpoint ?? 'default'}`;
    let limit = limits.get(key);
    if (!limit) {
      limit = pLimit(Math.max(1, maxConnections));
      limits.set(key, limit);
    }
    return withEndpoint(model, { limit });
  };
}
