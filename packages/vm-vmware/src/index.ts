// @osharm/vm-vmware: VMware Workstation / Fusion as a VmProviderV1 of @osharm/desktop-env.

// provider
export { VmwareProvider, createVmwareProvider } from './vmware-provider';
export type {
  ResolvedVmwareSettings,
  VmwareHostType,
  VmwareProviderEvent,
  VmwareProviderSettings,
  VmwareTimeouts,
  VmwareWaitTarget,
} from './vmware-provider-settings';

// VM locks and pools
export { acquireVm, acquireVmLock, readVmLock, vmLockPath } from './vmware-vm-lock';
export type {
  AcquireVmLockOptions,
  AcquireVmOptions,
  VmwareVmLock,
  VmwareVmLockHolder,
} from './vmware-vm-lock';

// vmrun
export { parseGuestIpAddress } from './vmware-guest-ip';
export { parseVmrunList, runVmrun } from './vmware-vmrun';
export type { RunVmrunOptions, VmrunResult } from './vmware-vmrun';

export { VERSION } from './version';
