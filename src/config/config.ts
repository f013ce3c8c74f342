// Configuration: every setting is declared once (flag, environment variable, default, meaning)
// and validated at start-up. The rest of the server imports from here only, so the files that
// hold the parts (parsers, settings table, loading) can be rearranged without touching it.
export { ConfigError, checkListenSafety, isLoopback, loadConfig } from './load-config.js';
export { settings, type CliValues, type Config, type SettingName } from './settings.js';
export { isEmail, parseDuration, type CaseGrouping, type SummaryProviderName } from './value-parsers.js';
export { resolvePublicUrl, type PublicUrlSettings } from './public-url.js';
