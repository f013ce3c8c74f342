// Application records (the logger/level/message records services log) → family
// `application`, logsource category `application` and, when the record names its software in a
// product field (`source: django`), that product; the keyword text is the message.
import type { LogSource } from './event.js';
import { freeze } from './endpoint.js';
import { applyMappings, firstPresent, firstString } from './fields.js';
import type { ProcessingPipeline } from './pipeline.js';
import type { Recogniser } from './recogniser.js';

const BASE = freeze([{ category: 'application' }]);
/** Product logsources are shared per product value, up to this many (values come from records). */
const MAX_CACHED_PRODUCTS = 256;

export function createApplicationRecogniser(pipeline: ProcessingPipeline): Recogniser {
  const config = pipeline.application;
  const byProduct = new Map<string, LogSource[]>();

  function logsources(product: string | undefined): LogSource[] {
    if (product === undefined) return BASE;
    let cached = byProduct.get(product);
    if (cached === undefined) {
      cached = freeze([{ category: 'application' }, { category: 'application', product }]);
      if (byProduct.size < MAX_CACHED_PRODUCTS) byProduct.set(product, cached);
    }
    return cached;
  }

  return {
    name: 'application',
    recognise(_record, fields) {
      if (firstPresent(fields, config.recogniseAny) === undefined) return undefined;
      applyMappings(fields, config.fields);
      const message = fields.message;
      return {
        family: 'application',
        logsources: logsources(firstString(fields, config.productFields)),
        keywords: typeof message === 'string' ? message : '',
      };
    },
  };
}
