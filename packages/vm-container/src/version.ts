declare const __PACKAGE_VERSION__: string | undefined;

/** The version of `@osharm/vm-container` (injected at build time); the desktop image's tag too. */
export const VERSION: string =
  typeof __PACKAGE_VERSION__ === 'string' ? __PACKAGE_VERSION__ : '0.1.0';
