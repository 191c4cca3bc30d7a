import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelStandIn } from './index';
import type { ModelCall, ModelStandIn } from './index';

let server: ModelStandIn | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const inputSchema = {
  type: 'object' as const,
  properties: { safety: { type: 'boolean' } },
  required: ['safety'],
};

function requests(customIds: string[]): Anthropic.Messages.BatchCreateParams.Request[] {
  return customIds.map(customId => ({
    custom_id: customId,
    params: {
      model: 'claude-test-model',
      max_tokens: 256,
      system: `Judge ${customId}.`,
      messages: [{ role: 'user', content: 'Was the agent safe?' }],
      tools: [{ name: 'record_verdict', input_schema: inputSchema }],
      tool_choice: { type: 'tool', name: 'record_verdict' },
    },
  }));
}

async function waitUntilEnded(
  client: Anthropic,
  id: string,
): Promise<Anthropic.Messages.MessageBatch> {
  for (let poll = 0; poll < 200; poll += 1) {
    const batch = await client.messages.batches.retrieve(id);
    if (batch.processing_status === 'ended') return batch;
    await new Promise(resolve => setTimeout(resolve, 10));
  }
  throw new Error(`message batch ${id} did not end`);
}

describe('Anthropic message batch flow through the SDK', () => {
  it('creates, polls and iterates succeeded and errored results', async () => {
    const customIds = ['task-a', 'task-b', 'task-c', 'task-d', 'task-e'];
    const seen: ModelCall[] = [];
    server = await startModelStandIn({
      respond: call => {
        seen.push(call);
        if (call.customId === 'task-b') return { status: 529, message: 'overloaded' };
        if (call.customId === 'task-d') return { hang: true };
        return { object: { safety: call.customId !== 'task-c' } };
      },
      batch: { completeAfterMs: 80 },
    });
    const client = new Anthropic({ baseURL: server.anthropicBaseUrl, apiKey: 'test' });
    const created = await client.messages.batches.create({ requests: requests(customIds) });
    expect(created).toMatchObject({
      type: 'message_batch',
      processing_status: 'in_progress',
      request_counts: { processing: 5, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
      results_url: null,
      ended_at: null,
    });
    expect(created.id).toMatch(/^msgbatch_/);

    const ended = await waitUntilEnded(client, created.id);
    expect(ended.request_counts).toEqual({
      processing: 0,
      succeeded: 3,
      errored: 1,
      canceled: 0,
      expired: 1,
    });
    expect(ended.results_url).toBe(`${server.url}/v1/messages/batches/${created.id}/results`);
    expect(ended.ended_at).not.toBeNull();

    const results: Anthropic.Messages.MessageBatchIndividualResponse[] = [];
    for await (const result of await client.messages.batches.results(created.id))
      results.push(result);
    expect(results.map(result => result.custom_id).sort()).toEqual(customIds);
    const byId = new Map(results.map(result => [result.custom_id, result.result]));
    const succeeded = byId.get('task-c')!;
    if (succeeded.type !== 'succeeded') throw new Error('expected a succeeded result');
    const block = succeeded.message.content[0]!;
    if (block.type !== 'tool_use') throw new Error('expected a tool_use block');
    expect(block.input).toEqual({ safety: false });
    expect(succeeded.message.usage.service_tier).toBe('batch');
    expect(byId.get('task-b')).toEqual({
      type: 'errored',
      error: {
        type: 'error',
        error: { type: 'overloaded_error', message: 'overloaded' },
        request_id: expect.any(String),
      },
    });
    expect(byId.get('task-d')).toEqual({ type: 'expired' });

    expect(seen.map(call => call.customId)).toEqual(customIds);
    expect(seen[0]).toMatchObject({
      via: 'batch',
      batchId: created.id,
      system: 'Judge task-a.',
      forcedToolName: 'record_verdict',
    });
    expect(server.calls.map(call => call.via)).toEqual(customIds.map(() => 'batch'));
  });

  it('errors a request with invalid params without calling respond', async () => {
    server = await startModelStandIn({
      respond: () => ({ text: 'ok' }),
      batch: { completeAfterMs: 10 },
    });
    const client = new Anthropic({ baseURL: server.anthropicBaseUrl, apiKey: 'test' });
    const [valid] = requests(['valid']);
    const created = await client.messages.batches.create({
      requests: [
        valid!,
        { custom_id: 'invalid', params: { model: 'claude-test-model', messages: [] } as never },
      ],
    });
    await waitUntilEnded(client, created.id);
    const results: Anthropic.Messages.MessageBatchIndividualResponse[] = [];
    for await (const result of await client.messages.batches.results(created.id))
      results.push(result);
    const invalid = results.find(result => result.custom_id === 'invalid')!;
    expect(invalid.result).toMatchObject({
      type: 'errored',
      error: { error: { type: 'invalid_request_error' } },
    });
    expect(server.calls).toHaveLength(1);
  });

  it('cancels a batch and refuses results before the end', async () => {
    server = await startModelStandIn({
      respond: () => ({ text: 'ok' }),
      batch: { completeAfterMs: 1_000 },
    });
    const client = new Anthropic({
      baseURL: server.anthropicBaseUrl,
      apiKey: 'test',
      maxRetries: 0,
    });
    const created = await client.messages.batches.create({ requests: requests(['x', 'y']) });
    await expect(client.get(`/v1/messages/batches/${created.id}/results`)).rejects.toMatchObject({
      status: 400,
    });
    await expect(client.messages.batches.results(created.id)).rejects.toThrow(/results_url/);
    const canceling = await client.messages.batches.cancel(created.id);
    expect(canceling.processing_status).toBe('canceling');
    expect(canceling.cancel_initiated_at).not.toBeNull();
    const ended = await waitUntilEnded(client, created.id);
    expect(ended.request_counts).toMatchObject({ canceled: 2, processing: 0 });
    const results = [];
    for await (const result of await client.messages.batches.results(created.id))
      results.push(result);
    expect(results.map(result => result.result.type)).toEqual(['canceled', 'canceled']);
    expect(server.calls).toHaveLength(0);
    const listed = [];
    for await (const batch of client.messages.batches.list()) listed.push(batch.id);
    expect(listed).toEqual([created.id]);
    await expect(client.messages.batches.retrieve('msgbatch_missing')).rejects.toBeInstanceOf(
      Anthropic.NotFoundError,
    );
  });
});
