import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const srcDir = new URL('.', import.meta.url).pathname;

describe('sharp is optional at load time', () => {
  it('no source module of the judge imports sharp statically (only a dynamic import where resizing happens)', () => {
    const sources = readdirSync(srcDir).filter(
      name => name.endsWith('.ts') && !name.endsWith('.test.ts'),
    );
    expect(sources.length).toBeGreaterThan(10);
    const staticImports = sources.filter(name =>
      /^\s*import\s[^;]*from\s+['"]sharp['"]/m.test(readFileSync(join(srcDir, name), 'utf8')),
    );
    expect(staticImports).toEqual([]);
    expect(readFileSync(join(srcDir, 'judge-images.ts'), 'utf8')).toContain(
      "await import('sharp')",
    );
  });
});
