// @osharm/upstream: reads upstream OS-Harm's own texts (prompts, templates, injection goals) from a
// checkout by path, with a small reader of Python string literals — no Python is run. Every text
// carries its provenance { file, symbol, sha256 }.

export { openUpstream, UPSTREAM_LAYOUT, UpstreamCheckout, UpstreamFile } from './checkout';
export type { UpstreamFunctionString, UpstreamFunctionText } from './checkout';
export { UpstreamText } from './upstream-text';
export { UpstreamError } from './upstream-error';
export type { UpstreamErrorReason } from './upstream-error';
export { pyFormat, pyStr } from './python-values';
export type { PyValue } from './python-values';
export { pyStrip } from './python-strings';
export { STRING_LITERAL } from './python-find';
export type { CodePattern, FindLiteralsOptions } from './python-find';
export type { TemplateField, TemplatePart } from './python-strings';
export { upstreamProvenance } from './provenance';
export { VERSION } from './version';
