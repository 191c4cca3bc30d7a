// Which process owns a desktop pod: desktop-env's provider-kit `ownerId` (`host:pid:starttime`) in
// an annotation (label values cannot hold colons). The crash sweep deletes the pods of this host
// whose owner process is gone (`ownerAlive`).

/** Annotation holding the owner. */
export const OWNER_ANNOTATION = 'osharm.org/owner';
