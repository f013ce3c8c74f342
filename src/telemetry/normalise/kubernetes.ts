// Kubernetes: API-server audit events (their own family, fields flattened as given, e.g.
// `objectRef.resource`, `user.username`) and the logsource that orchestrator-enriched records
// (a pod's log lines, forwarded with pod and namespace fields) satisfy beside their own.
import type { LogSource } from './event.js';
import { freeze } from './endpoint.js';
import type { Recogniser } from './recogniser.js';

// SigmaHQ's audit rules state {category: application, product: kubernetes, service: audit}.
const AUDIT_LOGSOURCES = freeze([
  { product: 'kubernetes' },
  { product: 'kubernetes', service: 'audit' },
  { category: 'application', product: 'kubernetes', service: 'audit' },
]);

/** Added to the logsources of a record that carries the orchestrator's pod fields. */
export const CONTAINER_LOGSOURCE: LogSource = Object.freeze({ product: 'kubernetes', service: 'container' });

export const kubernetesAuditRecogniser: Recogniser = {
  name: 'kubernetes_audit',
  recognise(record) {
    const apiVersion = record.apiVersion;
    if (record.kind !== 'Event' || typeof apiVersion !== 'string' || !apiVersion.startsWith('audit.k8s.io/'))
      return undefined;
    return {
      family: 'kubernetes_audit',
      logsources: AUDIT_LOGSOURCES,
      // Audit events carry no free text; the request URI is the closest thing to a log line.
      keywords: typeof record.requestURI === 'string' ? record.requestURI : '',
    };
  },
};
