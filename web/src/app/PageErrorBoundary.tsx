// What a page shows when its code fails. After an upgrade the browser may still run the old app,
// whose page chunks no longer exist on the server: loading one fails, and instead of a blank page
// the person is told Sightline was updated and offered a reload. Any other error thrown while
// rendering a page is shown as such, with the way back; the navigation around it keeps working.
import { Component, useEffect, useState, type ReactNode } from 'react';
import { Button } from '../components/ui';

/** The messages browsers give when a dynamically imported module (a page chunk) cannot be loaded. */
const CHUNK_FAILURE =
  /Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed|Unable to preload CSS|ChunkLoadError|Loading chunk \S+ failed/i;

export function isChunkLoadFailure(error: unknown): boolean {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return CHUNK_FAILURE.test(text);
}

export function UpdatedNotice() {
  return (
    <div className="page-failure" role="alert">
      <h1>Sightline was updated</h1>
      <p>This page belongs to the version that was running when you opened Sightline. Reload to use the new one.</p>
      <Button variant="primary" onClick={() => window.location.reload()}>
        Reload
      </Button>
    </div>
  );
}

function PageFailed({ error }: { error: unknown }) {
  return (
    <div className="page-failure" role="alert">
      <h1>This page failed</h1>
      <p>
        Something went wrong while showing it: <code>{error instanceof Error ? error.message : String(error)}</code>
      </p>
      <p>
        <Button variant="primary" onClick={() => window.location.reload()}>
          Reload
        </Button>{' '}
        <Button onClick={() => window.history.back()}>Go back</Button>
      </p>
    </div>
  );
}

interface BoundaryProps {
  /** A new key (the page's address) clears a failure: moving to another page tries again. */
  resetKey: string;
  children: ReactNode;
}

interface BoundaryState {
  error: unknown;
  failedAt: string | undefined;
}

export class PageErrorBoundary extends Component<BoundaryProps, BoundaryState> {
  override state: BoundaryState = { error: undefined, failedAt: undefined };

  static getDerivedStateFromError(error: unknown): Partial<BoundaryState> {
    return { error };
  }

  override componentDidCatch(): void {
    this.setState({ failedAt: this.props.resetKey });
  }

  override render(): ReactNode {
    const { error, failedAt } = this.state;
    const stillThere = error !== undefined && (failedAt === undefined || failedAt === this.props.resetKey);
    if (!stillThere) return this.props.children;
    return isChunkLoadFailure(error) ? <UpdatedNotice /> : <PageFailed error={error} />;
  }

  override componentDidUpdate(previous: BoundaryProps): void {
    if (
      previous.resetKey !== this.props.resetKey &&
      this.state.error !== undefined &&
      this.state.failedAt !== undefined
    ) {
      this.setState({ error: undefined, failedAt: undefined });
    }
  }
}

/**
 * Vite reports a failed preload of a chunk's dependencies (its CSS, a shared module) as a
 * `vite:preloadError` event on window rather than a rejected import: that too means the app
 * running is older than the server's, and gets the same notice.
 */
export function usePreloadFailure(): boolean {
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    const onFailure = (event: Event) => {
      event.preventDefault();
      setFailed(true);
    };
    window.addEventListener('vite:preloadError', onFailure);
    return () => window.removeEventListener('vite:preloadError', onFailure);
  }, []);
  return failed;
}
