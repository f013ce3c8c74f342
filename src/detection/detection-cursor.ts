// Detection's place in the record log: the name of its cursor, and how a consumer gets a fresh
// processor. The consumer itself (pipeline/detection-consumer.ts) sits above the features whose
// rows it stores; whichever deployment drives it, detection's own work is the processor's.
import type { DetectionProcessor } from './detection-processor.js';
import type { CorrelationEngine } from './sigma/correlation.js';

/** The detection consumer's name in the record log. */
export const DETECTION_CURSOR = 'detection';

/** Builds a fresh processor around a fresh correlation engine (its state is restored by the consumer). */
export type ProcessorFactory = () => { processor: DetectionProcessor; correlations: CorrelationEngine };
