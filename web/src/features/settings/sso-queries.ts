// Single sign-on settings (GET, PUT, DELETE /v1/sso) and the verification of their email
// domains. A tenant without settings answers 404 `sso_not_configured`, which still says which
// redirect URI to register at the provider.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../../api/client';
import type { Static } from 'typebox';
import type { SsoSettingsBody, SsoSettingsSchema } from '../../../../src/identity/sso/sso-schemas.js';

export type SsoSettings = Static<typeof SsoSettingsSchema>;
export type SsoSettingsInput = Static<typeof SsoSettingsBody>;

export type SsoState =
  { configured: true; settings: SsoSettings } | { configured: false; redirect_uri: string; sign_in_url: string };

const ssoKey = ['sso'] as const;

async function loadSso(): Promise<SsoState> {
  try {
    return { configured: true, settings: await api.get<SsoSettings>('/v1/sso') };
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'sso_not_configured') throw error;
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    return {
      configured: false,
      redirect_uri: text(error.problem?.redirect_uri),
      sign_in_url: text(error.problem?.sign_in_url),
    };
  }
}

export function useSso() {
  return useQuery({ queryKey: ssoKey, queryFn: loadSso, retry: false });
}

export function useSsoSave() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: SsoSettingsInput) => api.put<SsoSettings>('/v1/sso', input),
    onSuccess: (settings) => {
      const state: SsoState = { configured: true, settings };
      queryClient.setQueryData(ssoKey, state);
    },
  });
}

export function useSsoRemove() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete<null>('/v1/sso'),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ssoKey }),
  });
}

/** Asks the server to look for the domain's TXT record now; the settings are read again after. */
export function useSsoVerifyDomain() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (domain: string) => api.post<unknown>(`/v1/sso/domains/${encodeURIComponent(domain)}/verify`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ssoKey }),
  });
}
