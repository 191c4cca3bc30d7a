import { describe, expect, it } from 'vitest';
import { JsonBodyWriter } from './json-body';

describe('JsonBodyWriter', () => {
  it('gives the same JSON as JSON.stringify with the texts in place', () => {
    const writer = new JsonBodyWriter();
    const base64 = Buffer.from('a PNG, say').toString('base64');
    const body = {
      model: 'gpt-4o',
      messages: [
        {
          role: 'system',
          content: 'tabs\there, "quotes", ünïcödé 日本語, osharm-blob-not-a-marker-0',
        },
        {
          role: 'user',
          content: [
            {
              type: 'image_url',
              image_url: { url: writer.blob('data:image/png;base64,', base64) },
            },
            { type: 'image', source: { data: writer.blob(base64) } },
          ],
        },
      ],
    };
    const bytes = writer.serialize(body);
    const expected = structuredClone(body);
    expected.messages[1]!.content = [
      { type: 'image_url', image_url: { url: `data:image/png;base64,${base64}` } },
      { type: 'image', source: { data: base64 } },
    ];
    expect(bytes.toString('utf8')).toBe(JSON.stringify(expected));
    // Serializing again (the context retry) gives the same bytes.
    expect(writer.serialize(body).equals(bytes)).toBe(true);
  });
});
