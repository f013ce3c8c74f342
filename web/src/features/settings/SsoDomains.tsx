// The allowed email domains of single sign-on and whether each is verified: single sign-on
// accepts only people of verified domains. An unverified domain shows the DNS TXT record that
// verifies it and a button to check for it now; a platform operator can approve a domain instead.
import { errorMessage } from '../../api/client';
import { CopyButton } from '../../components/CopyButton';
import { Badge, Button, Notice, Panel } from '../../components/ui';
import { useSsoVerifyDomain, type SsoSettings } from './sso-queries';

export function SsoDomains({ domains, editable }: { domains: SsoSettings['email_domains']; editable: boolean }) {
  const verify = useSsoVerifyDomain();
  return (
    <Panel title="Email domains">
      <p className="muted">
        Single sign-on accepts only people whose email is in a verified domain. Publish the TXT record on the domain,
        then check it; or ask your platform operator to approve the domain.
      </p>
      <ul className="plain-list" aria-label="Email domains">
        {domains.map((entry) => (
          <li key={entry.domain}>
            <strong>{entry.domain}</strong>{' '}
            {entry.verified ? (
              <Badge tone="success">{entry.verified_by === 'operator' ? 'Approved by an operator' : 'Verified'}</Badge>
            ) : (
              <>
                <Badge tone="warning">Not verified</Badge>
                <div>
                  TXT record on <code>{entry.dns_record.name}</code>: <code>{entry.dns_record.value}</code>{' '}
                  <CopyButton value={entry.dns_record.value} label={`Copy the TXT record of ${entry.domain}`} />
                </div>
                {editable && (
                  <Button
                    small
                    disabled={verify.isPending}
                    onClick={() => verify.mutate(entry.domain)}
                    aria-label={`Check the TXT record of ${entry.domain}`}
                  >
                    Check now
                  </Button>
                )}
              </>
            )}
          </li>
        ))}
      </ul>
      {verify.isError && <Notice tone="danger">{errorMessage(verify.error)}</Notice>}
    </Panel>
  );
}
