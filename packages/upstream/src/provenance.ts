import type { PromptProvenance, UpstreamSource } from '@osharm/task-schema';

/**
 * The `prompt_family: "upstream"` record of the texts used, each `{file, symbol, sha256}` listed
 * once, sorted by file then symbol (so equal uses give equal records).
 */
export function upstreamProvenance(
  sources: Iterable<UpstreamSource | { readonly source: UpstreamSource }>,
): PromptProvenance {
  const unique = new Map<string, UpstreamSource>();
  for (const item of sources) {
    const source = 'source' in item ? item.source : item;
    unique.set(`${source.file}\0${source.symbol}`, {
      file: source.file,
      symbol: source.symbol,
      sha256: source.sha256,
    });
  }
  const upstream_sources = [...unique.values()].sort(
    (a, b) => a.file.localeCompare(b.file) || a.symbol.localeCompare(b.symbol),
  );
  return { prompt_family: 'upstream', upstream_sources };
}
