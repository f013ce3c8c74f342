// MITRE ATT&CK identifiers as filters take them.

/** A technique or sub-technique id: T1059, T1059.004 (any case; the API takes them upper case). */
export const TECHNIQUE_ID = /^T\d{4}(\.\d{3})?$/i;
