// Copies a value to the clipboard and says so. Falls back to selecting a hidden field where the
// Clipboard API is unavailable (plain HTTP on a non-loopback address).
import { useState } from 'react';
import { Button } from './ui';

async function copyText(text: string): Promise<void> {
  // The Clipboard API exists in secure contexts only, whatever the DOM types say.
  if (window.isSecureContext && 'clipboard' in navigator) return navigator.clipboard.writeText(text);
  const field = document.createElement('textarea');
  field.value = text;
  field.setAttribute('readonly', '');
  field.style.position = 'fixed';
  field.style.opacity = '0';
  document.body.append(field);
  field.select();
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- its replacement, the Clipboard API, is missing here (not a secure context)
  const copied = document.execCommand('copy');
  field.remove();
  if (!copied) throw new Error('the browser refused to copy');
}

export function CopyButton({
  value,
  label = 'Copy',
  small = true,
}: {
  value: string;
  label?: string;
  small?: boolean;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <Button
      small={small}
      onClick={() => {
        copyText(value).then(
          () => setState('copied'),
          () => setState('failed'),
        );
        window.setTimeout(() => setState('idle'), 2_000);
      }}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select and copy' : label}
    </Button>
  );
}
