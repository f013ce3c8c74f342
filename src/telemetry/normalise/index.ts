// Normalisation: stored records → DetectionEvents (event.ts) for the Sigma engine, configured by
// the processing pipeline (config/detection-pipeline.yml). See normaliser.ts for the flow and
// the per-format files for what each record shape becomes.
export { createNormaliser, type Normaliser, type StoredRecord } from './normaliser.js';
export {
  DEFAULT_PIPELINE_FILE,
  loadPipeline,
  parsePipeline,
  PipelineError,
  type ProcessingPipeline,
} from './pipeline.js';
export { FLATTEN_LIMITS, TRUNCATED_FIELD, type FlattenLimits } from './flatten.js';
export type { MappedField } from './fields.js';
