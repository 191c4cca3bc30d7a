// @osharm/runner/internal: NOT a public API. Glue the runner shares with apps/cli (the bundled
// provider names `osharm run` offers, the offline-model check and its hint, `osharm models check`).
// It may change in any release, patch releases included; it is for @osharm packages only. User
// code imports `@osharm/runner` or `@osharm/runner/parts`.
export { BUNDLED_PROVIDERS } from './run-options';
export { isOfflineModel, REAL_MODEL_HINT } from './agent-choice';
export { checkModels } from './models-check';
export type { ModelCheckLine } from './models-check';
