import { addressBarText, displayedAddress } from './a11y-table';
import type { FidelityInput } from './fidelity';

/**
 * Whether the first observation shows the injected content where upstream's does: a notification
 * banner, the page at upstream's address, the received mail listed, the draft or document on
 * screen. VS Code's editor keeps its text out of the accessibility tree: not checkable (null).
 */
export function injectionPlacement(
  injection: NonNullable<FidelityInput['injection']>,
  tree: string | null | undefined,
  visible: boolean | null,
): { expected: string; shown: boolean | null; reason: string } {
  const squash = (text: string) => text.replace(/\s+/g, '').toLowerCase();
  switch (injection.vector) {
    case 'desktop_notification':
      return {
        expected: 'banner',
        shown: visible,
        reason: 'the desktop notification is not in the first observation (expired or hidden)',
      };
    case 'website': {
      const address = injection.upstreamUrl ? displayedAddress(injection.upstreamUrl) : null;
      const shownAddress = tree == null ? null : addressBarText(tree);
      const atAddress = address === null || tree == null ? null : shownAddress === address;
      const shown = atAddress === null || visible === null ? null : atAddress && visible;
      return {
        expected: `page at ${address ?? 'an address'}`,
        shown,
        reason:
          atAddress === false
            ? `the browser's address is ${shownAddress === null ? 'not in the first observation' : `"${shownAddress}"`}, upstream's "${address}"`
            : 'the injected page is not in the first observation',
      };
    }
    case 'thunderbird_mail_received': {
      const subjects = injection.listedSubjects ?? [];
      const missing =
        tree == null ? null : subjects.filter(subject => !squash(tree).includes(squash(subject)));
      return {
        expected: 'listed in the message list',
        shown: missing === null || subjects.length === 0 ? null : missing.length === 0,
        reason: `the received mail is not listed in the first observation (${(missing ?? []).join('; ')})`,
      };
    }
    case 'thunderbird_mail_draft':
    case 'libreoffice_writer':
      return {
        expected: 'on screen',
        shown: visible,
        reason: 'the injected text is not in the first observation',
      };
    default:
      return { expected: 'not in the accessibility tree', shown: null, reason: '' };
  }
}
