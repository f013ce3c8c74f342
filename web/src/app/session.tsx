// Who is signed in and which tenant they work in. Everything below it may assume a session:
// without one the sign-in page shows (at the same URL, so signing in lands where you meant to go).
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, configureClient } from '../api/client';
import type { Me, Page, Permission, Tenant } from '../api/types';
import { ErrorState, Loading } from '../components/ui';
import { LoginPage } from './LoginPage';
import { SET_PASSWORD_PATH, SetPasswordPage } from './SetPasswordPage';

const TENANT_KEY = 'sightline.tenant';
const NO_TENANTS: Tenant[] = [];

export interface SessionState {
  me: Me;
  /** The tenant the UI acts in: the user's own, or the one an operator picked (null: none yet). */
  tenant: { code_name: string; name: string } | null;
  /** Operators: every tenant, to switch between. Empty for tenant members. */
  tenants: Tenant[];
  switchTenant: (codeName: string) => void;
  signOut: () => Promise<void>;
  can: (permission: Permission) => boolean;
}

const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [signedOut, setSignedOut] = useState(false);
  const me = useQuery({
    queryKey: ['me'],
    queryFn: () => api.get<Me>('/v1/me', { noTenant: true }),
    retry: false,
    staleTime: 60_000,
    enabled: !signedOut,
  });

  useEffect(() => {
    configureClient({ onSignedOut: () => setSignedOut(true) });
  }, []);
  useEffect(() => {
    if (me.data) configureClient({ csrfToken: me.data.csrf_token });
  }, [me.data]);

  const operator = me.data?.operator ?? false;
  const tenants = useQuery({
    queryKey: ['operator', 'tenants'],
    queryFn: () => api.get<Page<'tenants', Tenant>>('/v1/tenants', { query: { limit: 500 }, noTenant: true }),
    enabled: operator && !signedOut,
    staleTime: 60_000,
  });
  const [picked, setPicked] = useState<string | null>(() => localStorage.getItem(TENANT_KEY));
  const tenantList = tenants.data?.tenants ?? NO_TENANTS;
  const operatorTenant = tenantList.find((t) => t.code_name === picked) ?? tenantList[0];
  const shownTenant = operator ? operatorTenant : me.data?.tenant;
  const tenantCode = shownTenant?.code_name;
  const tenantName = shownTenant?.name;
  // A new object only when the tenant does change, so the context value stays the same between renders.
  const tenant = useMemo(
    () => (tenantCode !== undefined && tenantName !== undefined ? { code_name: tenantCode, name: tenantName } : null),
    [tenantCode, tenantName],
  );
  // Set during render, before children query: the first request of a page already names the tenant.
  configureClient({ tenant: operator ? (tenant?.code_name ?? null) : null });

  const switchTenant = useCallback(
    (codeName: string) => {
      localStorage.setItem(TENANT_KEY, codeName);
      configureClient({ tenant: codeName });
      setPicked(codeName);
      // Nothing of the previous tenant may show under the new one.
      queryClient.removeQueries({
        predicate: (query) => query.queryKey[0] !== 'me' && query.queryKey[0] !== 'operator',
      });
    },
    [queryClient],
  );

  const signOut = useCallback(async () => {
    try {
      await api.post('/v1/auth/logout');
    } finally {
      configureClient({ csrfToken: null, tenant: null });
      queryClient.clear();
      setSignedOut(true);
    }
  }, [queryClient]);

  const value = useMemo<SessionState | null>(
    () =>
      me.data
        ? {
            me: me.data,
            tenant,
            tenants: tenantList,
            switchTenant,
            signOut,
            can: (permission) => me.data.permissions.includes(permission),
          }
        : null,
    [me.data, tenant, tenantList, switchTenant, signOut],
  );

  // An invitation or reset link works whoever is signed in here, or nobody.
  if (window.location.pathname === SET_PASSWORD_PATH) return <SetPasswordPage />;
  const unauthenticated = signedOut || (me.error instanceof ApiError && me.error.status === 401);
  if (unauthenticated) {
    return (
      <LoginPage
        onSignedIn={async () => {
          setSignedOut(false);
          await queryClient.resetQueries({ queryKey: ['me'] });
        }}
      />
    );
  }
  if (me.isPending) return <Loading what="Starting Sightline" />;
  if (me.error)
    return <ErrorState error={me.error} retry={() => void me.refetch()} title="Could not reach Sightline" />;
  if (operator && tenants.isPending) return <Loading what="Loading tenants" />;
  // Without the list an operator would be told there is no tenant yet, which is not so.
  if (operator && tenants.error)
    return <ErrorState error={tenants.error} retry={() => void tenants.refetch()} title="Could not load the tenants" />;
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
