// "Using the API": the base URL, a call to try, and how to authorise in the API reference.
import { CopyButton } from '../../components/CopyButton';
import { Panel } from '../../components/ui';
import { ExternalLinkIcon } from '../../components/icons';

function Snippet({ label, text }: { label: string; text: string }) {
  return (
    <div className="snippet">
      <span className="field-label">{label}</span>
      <pre>
        <code>{text}</code>
      </pre>
      <CopyButton value={text} label="Copy" />
    </div>
  );
}

export function ApiUsagePanel() {
  const origin = window.location.origin;
  return (
    <Panel title="Using the API">
      <div className="url-row base-url">
        <span className="field-label">Base URL</span>
        <code>{origin}/v1</code>
        <CopyButton value={`${origin}/v1`} />
      </div>
      <Snippet label="Check the token" text={`curl -H "Authorization: Bearer $TOKEN" ${origin}/v1/me`} />
      <Snippet
        label="List cases"
        text={`curl -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\\n  -d '{"limit": 20}' ${origin}/v1/cases`}
      />
      <p>
        <a href="/docs/" target="_blank" rel="noopener">
          Open the API reference <ExternalLinkIcon />
        </a>{' '}
        <span className="muted">(new tab)</span>
      </p>
      <ol className="plain-list">
        <li>The browser asks for a user name and password: any user name, the token as the password.</li>
        <li>
          Click <strong>Authorize</strong> and paste the token into the <strong>Personal Access Token</strong> field.
        </li>
        <li>
          <strong>Try it out</strong> on any operation runs it against your data and shows the cURL command.
        </li>
      </ol>
      <p className="muted">
        A token can also be sent as HTTP Basic: <code>curl -u x:$TOKEN …</code>. Calls need the token's permissions; a
        deleted or expired token is answered 401.
      </p>
    </Panel>
  );
}
