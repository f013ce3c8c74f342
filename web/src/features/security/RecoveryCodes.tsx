// Recovery codes, shown once right after they were made: copy them, download them as a text
// file, then say they are saved. The server keeps only their hashes.
import { CopyButton } from '../../components/CopyButton';
import { Button, Notice } from '../../components/ui';

function download(codes: string[], account: string): void {
  const text = `Sightline recovery codes for ${account}\nEach code signs in once instead of an authenticator code.\n\n${codes.join('\n')}\n`;
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = 'sightline-recovery-codes.txt';
  link.click();
  URL.revokeObjectURL(url);
}

export function RecoveryCodes({ codes, account, onDone }: { codes: string[]; account: string; onDone: () => void }) {
  return (
    <div className="recovery-codes">
      <Notice tone="warning">
        Save these recovery codes somewhere safe now: they cannot be shown again. Each one signs you in once if you lose
        your phone.
      </Notice>
      <ol className="recovery-code-list" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="toolbar">
        <CopyButton value={codes.join('\n')} label="Copy codes" small={false} />
        <Button onClick={() => download(codes, account)}>Download</Button>
        <Button variant="primary" onClick={onDone}>
          I have saved them
        </Button>
      </div>
    </div>
  );
}
