// Everything detection needs, loaded once: the processing pipeline, the rules (the bundled pack
// plus configured directories), the ATT&CK catalogue, the routed rule set and a factory for
// correlation engines. The server, the detection thread and `sightline rules test` share it.
import { fileURLToPath } from 'node:url';
import { loadRuleDirectories, RuleSet, type RuleCompilation } from './sigma/index.js';
import { CorrelationEngine } from './sigma/correlation.js';
import {
  createNormaliser,
  loadPipeline,
  type Normaliser,
  type ProcessingPipeline,
} from '../telemetry/normalise/index.js';
import { loadAttackCatalogue, type AttackCatalogue } from './attack.js';
import { DetectionProcessor } from './detection-processor.js';
import type { ProcessorFactory } from './detection-cursor.js';

/** The bundled rule pack (same depth from src/detection and dist/detection). */
export const BUNDLED_RULES_DIR = fileURLToPath(new URL('../../rules/', import.meta.url));

export interface DetectionOptions {
  /** Extra rule directories or files, beside the bundled pack. */
  rulePaths: readonly string[];
  /** The processing pipeline YAML; empty: the bundled one. */
  pipelinePath: string;
}

export interface DetectionSetup {
  pipeline: ProcessingPipeline;
  /** The rule paths loaded beside the bundled pack. */
  rulePaths: readonly string[];
  compilation: RuleCompilation;
  ruleSet: RuleSet;
  catalogue: AttackCatalogue;
  normaliser: Normaliser;
  /** A processor around a fresh correlation engine (the loop restores its state). */
  buildProcessor: ProcessorFactory;
}

export function loadDetection(options: DetectionOptions): DetectionSetup {
  const pipeline = loadPipeline(options.pipelinePath === '' ? undefined : options.pipelinePath);
  const compilation = loadRuleDirectories([BUNDLED_RULES_DIR, ...options.rulePaths], {
    placeholders: pipeline.placeholders,
  });
  const ruleSet = new RuleSet(compilation.rules);
  const catalogue = loadAttackCatalogue();
  const normaliser = createNormaliser(pipeline);
  const buildProcessor: ProcessorFactory = () => {
    const correlations = new CorrelationEngine(compilation.correlations);
    return { processor: new DetectionProcessor({ normaliser, ruleSet, correlations, catalogue }), correlations };
  };
  return { pipeline, rulePaths: options.rulePaths, compilation, ruleSet, catalogue, normaliser, buildProcessor };
}
