// Copy-ready forwarder configurations for the tenant's collector, from the one module that
// generates them (src/collector/forwarder-configs.ts), with the log files to read adjustable.
import { useMemo } from 'react';
import { defaultLogPath, forwarderConfigs } from '../../../../src/collector/forwarders/forwarder-configs.js';
import { CopyButton } from '../../components/CopyButton';
import { Field } from '../../components/ui';
import { useUrlFilters } from '../../lib/url-state';

/** `keyed`: the tenant requires ingest keys, so each configuration sends one. */
export function ForwarderConfigs({ collectorUrl, keyed }: { collectorUrl: string; keyed: boolean }) {
  const [filters, setFilters] = useUrlFilters(['forwarder', 'path'] as const);
  const typedPath = filters.path?.trim() ?? '';
  const logPath = typedPath === '' ? defaultLogPath : typedPath;
  const configs = useMemo(() => forwarderConfigs(collectorUrl, logPath, keyed), [collectorUrl, logPath, keyed]);
  // The first forwarder is the default, left out of the URL.
  const active = configs.find((c) => c.id === filters.forwarder) ?? configs[0];
  if (!active) return null;
  return (
    <>
      <div className="filters">
        <Field label="Log files to send" hint="A path or glob of files holding one JSON object per line.">
          <input
            type="text"
            value={filters.path ?? ''}
            placeholder={defaultLogPath}
            onChange={(event) => setFilters({ path: event.target.value })}
            className="log-path-input"
          />
        </Field>
      </div>
      <div className="tabs" role="tablist" aria-label="Forwarder">
        {configs.map((config, index) => (
          <button
            key={config.id}
            type="button"
            role="tab"
            className="tab"
            id={`tab-${config.id}`}
            aria-selected={config.id === active.id}
            aria-controls={`panel-${config.id}`}
            onClick={() => setFilters({ forwarder: index === 0 ? '' : config.id })}
          >
            {config.name}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${active.id}`} aria-labelledby={`tab-${active.id}`}>
        {active.files.map((file) => (
          <div className="config-file" key={file.path}>
            <div className="config-file-header">
              <code className="muted">{file.path}</code>
              <CopyButton value={file.text} label={`Copy ${file.path.split('/').pop()}`} />
            </div>
            <pre aria-label={`${active.name} configuration ${file.path}`}>
              <code>{file.text}</code>
            </pre>
          </div>
        ))}
        <ul className="plain-list muted">
          <li>
            Checked against {active.name} {active.version}.
          </li>
          {active.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      </div>
    </>
  );
}
