import { describe, expect, it } from 'vitest';
import { checkScriptedReply } from './index';
import { describeAnthropicRequest, describeOpenaiRequest } from './model-call';

const messages = [{ role: 'user', content: 'hi' }];
const schema = { type: 'object', required: ['a'] };

describe('structured output detection', () => {
  it('reads the OpenAI ways of asking', () => {
    expect(
      describeOpenaiRequest({ model: 'm', messages, response_format: { type: 'json_object' } })
        .structuredOutput,
    ).toEqual({ mode: 'json-object', field: 'response_format' });
    const tools = [
      { type: 'function', function: { name: 'only', parameters: schema } },
      { type: 'function', function: { name: 'second', parameters: {} } },
    ];
    expect(
      describeOpenaiRequest({
        model: 'm',
        messages,
        tools: tools.slice(0, 1),
        tool_choice: 'required',
      }),
    ).toMatchObject({
      structuredOutput: { mode: 'forced-tool', name: 'only', schema },
      forcedToolName: 'only',
    });
    expect(
      describeOpenaiRequest({ model: 'm', messages, tools, tool_choice: 'required' })
        .structuredOutput,
    ).toEqual({ mode: 'none' });
    expect(
      describeOpenaiRequest({ model: 'm', messages, tools, tool_choice: 'auto' }).forcedToolName,
    ).toBeUndefined();
    expect(
      describeOpenaiRequest({
        model: 'm',
        messages: [
          { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
          ...messages,
        ],
      }).system,
    ).toBe('Be brief.');
  });

  it('reads the Anthropic ways of asking', () => {
    expect(
      describeAnthropicRequest({
        model: 'm',
        max_tokens: 5,
        messages,
        output_format: { type: 'json_schema', schema },
      }).structuredOutput,
    ).toEqual({ mode: 'json-schema', field: 'output_format', schema });
    expect(
      describeAnthropicRequest({
        model: 'm',
        max_tokens: 5,
        messages,
        tools: [{ name: 'a', input_schema: schema }],
        tool_choice: { type: 'auto' },
      }).structuredOutput,
    ).toEqual({ mode: 'none' });
  });

  it('refuses requests the APIs refuse', () => {
    expect(() => describeOpenaiRequest({ messages })).toThrow(/model/);
    expect(() => describeOpenaiRequest({ model: 'm', messages: [] })).toThrow(/messages/);
    expect(() => describeAnthropicRequest({ model: 'm', messages })).toThrow(/max_tokens/);
  });
});

describe('checkScriptedReply', () => {
  it('accepts each reply kind and refuses wrong ones', () => {
    for (const reply of [
      { object: { a: 1 } },
      { text: 'x', delayMs: 5, usage: { inputTokens: 1, outputTokens: 2 } },
      { malformed: true },
      { malformed: true, object: { a: 1 } },
      { status: 429, headers: { 'retry-after': '1' } },
      { hang: true },
    ])
      expect(checkScriptedReply(reply)).toBe(reply);
    expect(() => checkScriptedReply(undefined)).toThrow(TypeError);
    expect(() => checkScriptedReply({})).toThrow(/exactly one/);
    expect(() => checkScriptedReply({ object: [1] })).toThrow(/JSON object/);
    expect(() => checkScriptedReply({ status: 200 })).toThrow(/400–599/);
    expect(() => checkScriptedReply({ text: 'x', delayMs: -1 })).toThrow(/delayMs/);
  });
});
