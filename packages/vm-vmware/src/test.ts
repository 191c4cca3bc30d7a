// @osharm/vm-vmware/test: a stand-in vmrun for tests without VMware.
export { createVmrunStandIn } from './vmrun-stand-in';
export type {
  VmrunStandIn,
  VmrunStandInCall,
  VmrunStandInIpMode,
  VmrunStandInOptions,
  VmrunStandInVm,
  VmrunStandInVmState,
} from './vmrun-stand-in';
