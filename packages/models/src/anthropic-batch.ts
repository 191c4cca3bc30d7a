import type Anthropic from '@anthropic-ai/sdk';
import {
  type ModelBatchApi,
  type ModelBatchEntry,
  type ModelBatchStatus,
  toModelError,
} from '@osharm/model-spec';

/** Anthropic Message Batches over a lazily made client. */
export function createAnthropicBatchApi(
  client: () => Promise<Anthropic>,
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
        const batch = await (
          await client()
        ).messages.batches.create(
          {
            requests: requests.map(request => ({
              custom_id: request.customId,
              params: request.body as unknown as Anthropic.MessageCreateParamsNonStreaming,
            })),
          },
          { signal },
        );
        return batch.id;
      }),
    retrieve: ({ batchId, signal }) =>
      wrap(async (): Promise<ModelBatchStatus> => {
        const batch = await (await client()).messages.batches.retrieve(batchId, {}, { signal });
        const counts = batch.request_counts;
        return {
          id: batch.id,
          status: batch.processing_status,
          done: batch.processing_status === 'ended',
          total:
            counts.processing +
            counts.succeeded +
            counts.errored +
            counts.canceled +
            counts.expired,
          completed: counts.succeeded,
          failed: counts.errored + counts.canceled + counts.expired,
        };
      }),
    results: ({ batchId, signal }) => results(client, provider, batchId, signal),
  };
}

async function* results(
  client: () => Promise<Anthropic>,
  provider: string,
  batchId: string,
  signal: AbortSignal | undefined,
): AsyncIterable<ModelBatchEntry> {
  let entries: AsyncIterable<Anthropic.Messages.Batches.MessageBatchIndividualResponse>;
  try {
    entries = await (await client()).messages.batches.results(batchId, {}, { signal });
  } catch (error) {
    throw toModelError(error, provider);
  }
  for await (const entry of entries) {
    if (entry.result.type === 'succeeded') {
      yield { customId: entry.custom_id, ok: true, body: entry.result.message };
    } else {
      const detail = entry.result.type === 'errored' ? `: ${entry.result.error.error.message}` : '';
      yield {
        customId: entry.custom_id,
        ok: false,
        error: `batch request ${entry.result.type}${detail}`,
      };
    }
  }
}
