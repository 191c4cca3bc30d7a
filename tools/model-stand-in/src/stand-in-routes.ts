import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnthropicBatchStore } from './anthropic-batches';
import type { ModelWire } from './answer-body';
import { parseJsonObject, readBody, redactedHeaders, sendBytes, sendJson } from './http-exchange';
import type { ModelVendor } from './model-call';
import type { OpenaiBatchStore } from './openai-batches';

/** One route of the stand-in: a method and a path after `/v1/`. */
export interface Route {
  method: string;
  /** Path after `/v1/`; a `:id` segment matches any one segment. */
  path: string;
  vendor: ModelVendor;
  handle: (exchange: Exchange, id: string) => void | Promise<void>;
}

/** One request being answered. */
export interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  /** Aborted when the client goes away or the stand-in closes. */
  signal: AbortSignal;
}

/** What the routes call back into: the model-call handler, the batch stores and request ids. */
export interface RouteDeps {
  readonly modelCall: (exchange: Exchange, wire: ModelWire) => Promise<void>;
  readonly openaiBatches: OpenaiBatchStore;
  readonly anthropicBatches: AnthropicBatchStore;
  readonly nextId: (prefix: string) => string;
}

/** The OpenAI and Anthropic routes under `/v1/` (Gemini's paths are matched by the server itself). */
export function standInRoutes({
  modelCall,
  openaiBatches,
  anthropicBatches,
  nextId,
}: RouteDeps): Route[] {
  const json = (exchange: Exchange, vendor: ModelVendor, body: unknown): void => {
    const idHeader = vendor === 'anthropic' ? 'request-id' : 'x-request-id';
    sendJson(exchange.response, 200, body, { [idHeader]: nextId('req_') });
  };
  const jsonBody = async (exchange: Exchange) => parseJsonObject(await readBody(exchange.request));

  return [
    {
      method: 'POST',
      path: 'chat/completions',
      vendor: 'openai',
      handle: exchange => modelCall(exchange, 'chat'),
    },
    {
      method: 'POST',
      path: 'responses',
      vendor: 'openai',
      handle: exchange => modelCall(exchange, 'responses'),
    },
    {
      method: 'POST',
      path: 'files',
      vendor: 'openai',
      handle: async exchange => {
        const body = await readBody(exchange.request);
        const contentType = exchange.request.headers['content-type'];
        json(exchange, 'openai', await openaiBatches.uploadFile(body, contentType));
      },
    },
    {
      method: 'GET',
      path: 'files',
      vendor: 'openai',
      handle: exchange => json(exchange, 'openai', openaiBatches.listFiles()),
    },
    {
      method: 'GET',
      path: 'files/:id',
      vendor: 'openai',
      handle: (exchange, id) => json(exchange, 'openai', openaiBatches.retrieveFile(id)),
    },
    {
      method: 'DELETE',
      path: 'files/:id',
      vendor: 'openai',
      handle: (exchange, id) => json(exchange, 'openai', openaiBatches.deleteFile(id)),
    },
    {
      method: 'GET',
      path: 'files/:id/content',
      vendor: 'openai',
      handle: (exchange, id) =>
        sendBytes(
          exchange.response,
          200,
          openaiBatches.fileContent(id),
          'application/octet-stream',
          {
            'x-request-id': nextId('req_'),
          },
        ),
    },
    {
      method: 'POST',
      path: 'batches',
      vendor: 'openai',
      handle: async exchange => {
        const body = await jsonBody(exchange);
        json(
          exchange,
          'openai',
          openaiBatches.createBatch(body, redactedHeaders(exchange.request)),
        );
      },
    },
    {
      method: 'GET',
      path: 'batches',
      vendor: 'openai',
      handle: exchange => json(exchange, 'openai', openaiBatches.listBatches()),
    },
    {
      method: 'GET',
      path: 'batches/:id',
      vendor: 'openai',
      handle: (exchange, id) => json(exchange, 'openai', openaiBatches.retrieveBatch(id)),
    },
    {
      method: 'POST',
      path: 'batches/:id/cancel',
      vendor: 'openai',
      handle: (exchange, id) => json(exchange, 'openai', openaiBatches.cancelBatch(id)),
    },
    {
      method: 'POST',
      path: 'messages',
      vendor: 'anthropic',
      handle: exchange => modelCall(exchange, 'messages'),
    },
    {
      method: 'POST',
      path: 'messages/batches',
      vendor: 'anthropic',
      handle: async exchange => {
        const body = await jsonBody(exchange);
        const headers = redactedHeaders(exchange.request);
        json(exchange, 'anthropic', anthropicBatches.createBatch(body, headers));
      },
    },
    {
      method: 'GET',
      path: 'messages/batches',
      vendor: 'anthropic',
      handle: exchange => json(exchange, 'anthropic', anthropicBatches.listBatches()),
    },
    {
      method: 'GET',
      path: 'messages/batches/:id',
      vendor: 'anthropic',
      handle: (exchange, id) => json(exchange, 'anthropic', anthropicBatches.retrieveBatch(id)),
    },
    {
      method: 'GET',
      path: 'messages/batches/:id/results',
      vendor: 'anthropic',
      handle: (exchange, id) =>
        sendBytes(exchange.response, 200, anthropicBatches.results(id), 'application/x-jsonl', {
          'request-id': nextId('req_'),
        }),
    },
    {
      method: 'POST',
      path: 'messages/batches/:id/cancel',
      vendor: 'anthropic',
      handle: (exchange, id) => json(exchange, 'anthropic', anthropicBatches.cancelBatch(id)),
    },
  ];
}

/** The route for a method and the path segments after `/v1`, and the `:id` segment. */
export function findRoute(
  routes: readonly Route[],
  method: string,
  parts: string[],
): { route: Route; id: string } | undefined {
  for (const route of routes) {
    const pattern = route.path.split('/');
    if (route.method !== method || pattern.length !== parts.length) continue;
    let id = '';
    const matches = pattern.every((segment, position) => {
      if (segment !== ':id') return segment === parts[position];
      id = parts[position]!;
      return true;
    });
    if (matches) return { route, id };
  }
  return undefined;
}
