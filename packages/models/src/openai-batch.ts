import type OpenAI from 'openai';
import { loadOpenAI } from './vendor-clients';
import {
  type ModelBatchApi,
  type ModelBatchEntry,
  type ModelBatchStatus,
  toModelError,
} from '@osharm/model-spec';

/** The OpenAI Batch API (a JSONL file of chat-completions requests) over a lazily made client. */
export function createOpenAIBatchApi(
  client: () => Promise<OpenAI>,
  provider: string,
): ModelBatchApi {
  const wrap = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw toModelError(error, provider);
    }
  };
  return {
    submit: ({ requests, signal }) =>
      wrap(async () => {
        const lines = requests.map(request =>
          JSON.stringify({
            custom_id: request.customId,
            method: 'POST',
            url: '/v1/chat/completions',
            body: request.body,
          }),
        );
        const file = await (
          await client()
        ).files.create(
          {
            file: await (
              await loadOpenAI()
            ).toFile(Buffer.from(`${lines.join('\n')}\n`), 'osharm-judge-batch.jsonl'),
            purpose: 'batch',
          },
          { signal },
        );
        const batch = await (
          await client()
        ).batches.create(
          { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
          { signal },
        );
        return batch.id;
      }),
    retrieve: ({ batchId, signal }) =>
      wrap(async (): Promise<ModelBatchStatus> => {
        const batch = await (await client()).batches.retrieve(batchId, { signal });
        return {
          id: batch.id,
          status: batch.status,
          done: ['completed', 'failed', 'expired', 'cancelled'].includes(batch.status),
          total: batch.request_counts?.total ?? 0,
          completed: batch.request_counts?.completed ?? 0,
          failed: batch.request_counts?.failed ?? 0,
        };
      }),
    results: ({ batchId, signal }) => results(client, provider, batchId, signal),
  };
}

async function* results(
  client: () => Promise<OpenAI>,
  provider: string,
  batchId: string,
  signal: AbortSignal | undefined,
): AsyncIterable<ModelBatchEntry> {
  const texts: string[] = [];
  try {
    const batch = await (await client()).batches.retrieve(batchId, { signal });
    for (const fileId of [batch.output_file_id, batch.error_file_id]) {
      if (fileId)
        texts.push(await (await (await client()).files.content(fileId, { signal })).text());
    }
  } catch (error) {
    throw toModelError(error, provider);
  }
  for (const text of texts) {
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const entry = JSON.parse(line) as {
        custom_id: string;
        response?: { status_code: number; body: unknown } | null;
        error?: { code?: string; message?: string } | null;
      };
      if (entry.response && entry.response.status_code === 200) {
        yield { customId: entry.custom_id, ok: true, body: entry.response.body };
      } else {
        const body = entry.response?.body as { error?: { message?: string } } | undefined;
        yield {
          customId: entry.custom_id,
          ok: false,
          error: `batch request failed: ${entry.error?.message ?? body?.error?.message ?? `HTTP ${entry.response?.status_code}`}`,
        };
      }
    }
  }
}
