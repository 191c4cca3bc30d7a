// @osharm/upstream/test: helpers for tests of packages that read an upstream checkout.
export { createTestCheckout, findSharedDir } from './test-checkout';
export type { TestCheckout, TestCheckoutOptions } from './test-checkout';
