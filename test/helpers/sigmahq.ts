// Where SigmaHQ's rule corpus lives in the repository: a pinned copy under vendor/sigmahq/
// (see its PINNED.md), read by the tests that load the rules real users load.
import { fileURLToPath } from 'node:url';

/** The pinned SigmaHQ checkout: rules/, rules-emerging-threats/, rules-threat-hunting/, LICENSE. */
export const SIGMAHQ = fileURLToPath(new URL('../../vendor/sigmahq', import.meta.url));

/** Its main rule folder. */
export const SIGMAHQ_RULES = `${SIGMAHQ}/rules`;
