// @osharm/desktop-env/provider-kit: what every VM provider needs on the host side — the guest
// channel (the socket pinned and sealed, TCP bridges through it) and owner identity for crash sweeps.
export { bridgePort, closeBridge, listenBridge, socketBridge, tunnelBridge } from './bridges';
export { pinGuestSocket, sealHarnessDir } from './guest-socket';
export { ownerAlive, ownerId } from './owner';
