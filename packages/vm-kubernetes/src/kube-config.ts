// Where the provider's cluster comes from: a kubeconfig ($KUBECONFIG, ~/.kube/config) or, inside a
// pod, its service account; and the provider's error type.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { VmProviderError } from '@osharm/desktop-env';

/** Where a pod's service account token, CA and namespace are mounted. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** A `VmProviderError` of provider `kubernetes`. */
export function providerError(
  message: string,
  cause?: unknown,
  isRetryable = true,
): VmProviderError {
  return new VmProviderError({ providerId: 'kubernetes', message, cause, isRetryable });
}

/** True where this process runs in a pod with a service account (the client's in-cluster config). */
export function inCluster(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST) && existsSync(`${SERVICE_ACCOUNT_DIR}/token`);
}

/**
 * The KubeConfig the provider uses without `kubeConfig`: $KUBECONFIG or ~/.kube/config (the
 * client's loadFromDefault), else the pod's service account. Refuses to guess (the client would
 * fall back to http://localhost:8080).
 */
export function loadKubeConfig(context?: string, env: NodeJS.ProcessEnv = process.env): KubeConfig {
  const config = new KubeConfig();
  // The client's loadFromDefault order, read from `env` (the caller's environment, not only ours).
  const files = (env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  const homeConfig = join(env.HOME ?? homedir(), '.kube', 'config');
  if (files.length > 0) {
    config.loadFromFile(files[0]!);
    for (const file of files.slice(1)) {
      const more = new KubeConfig();
      more.loadFromFile(file);
      config.mergeConfig(more);
    }
  } else if (existsSync(homeConfig)) config.loadFromFile(homeConfig);
  else if (inCluster(env)) config.loadFromCluster();
  else {
    throw providerError(
      'No Kubernetes cluster is configured: set KUBECONFIG or write ~/.kube/config (inside a pod the service account is used)',
      undefined,
      false,
    );
  }
  if (context) {
    if (!config.getContexts().some(c => c.name === context)) {
      throw providerError(`The kubeconfig has no context "${context}"`, undefined, false);
    }
    config.setCurrentContext(context);
  }
  return config;
}
