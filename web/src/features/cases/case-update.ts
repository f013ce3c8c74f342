// Changing one case (PATCH /v1/cases/{id}) with the version the page shows. When someone else
// changed the case first (409 version_conflict), the page reloads it and says what changed, so
// the analyst decides again with the current facts instead of overwriting them.
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, errorMessage } from '../../api/client';
import { humanize } from '../../lib/format';
import { caseKeys } from './api';
import type { Case, CaseChanges, CaseDetail } from './types';

/** What differs between the case as the analyst saw it and as it is now, in words. */
export function describeChanges(before: Case, after: Case): string[] {
  const changes: string[] = [];
  const person = (value: Case['assignee']) => value?.name ?? 'Unassigned';
  const say = (label: string, from: string, to: string) => {
    if (from !== to) changes.push(`${label}: ${from} → ${to}`);
  };
  say('status', humanize(before.status), humanize(after.status));
  say(
    'resolution',
    before.resolution ? humanize(before.resolution) : 'none',
    after.resolution ? humanize(after.resolution) : 'none',
  );
  say('assignee', person(before.assignee), person(after.assignee));
  say('severity', humanize(before.severity), humanize(after.severity));
  say('tags', before.tags.join(', ') || 'none', after.tags.join(', ') || 'none');
  say('score', String(before.score), String(after.score));
  if (after.observation_count !== before.observation_count)
    changes.push(`${after.observation_count - before.observation_count} new observation(s)`);
  say('title', before.title, after.title);
  return changes;
}

export interface Conflict {
  from: number;
  /** The version now (null: the reload failed, see `reloadError`). */
  to: number | null;
  changes: string[];
  reloadError?: string;
}

export function useCaseUpdate(detail: CaseDetail, ref: string) {
  const queryClient = useQueryClient();
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const key = caseKeys.detail(ref);
  const mutation = useMutation({
    mutationFn: ({ changes, base }: { changes: CaseChanges; base: CaseDetail }) =>
      api.patch<Case>(`/v1/cases/${base.id}`, { version: base.version, ...changes }),
    onMutate: () => setConflict(null),
    onSuccess: (updated) => {
      // The answer is the list form: keep the detail's own devices, observations and comments.
      queryClient.setQueryData<CaseDetail>(key, (old) => (old ? { ...old, ...updated, devices: old.devices } : old));
      void queryClient.invalidateQueries({ queryKey: caseKeys.all });
    },
    onError: async (error, { base }) => {
      if (!(error instanceof ApiError && error.code === 'version_conflict')) return;
      try {
        const fresh = await queryClient.query({
          queryKey: key,
          queryFn: () => api.get<CaseDetail>(`/v1/cases/${encodeURIComponent(ref)}`),
          staleTime: 0,
        });
        setConflict({ from: base.version, to: fresh.version, changes: describeChanges(base, fresh) });
      } catch (reload) {
        setConflict({ from: base.version, to: null, changes: [], reloadError: errorMessage(reload) });
      }
      void queryClient.invalidateQueries({ queryKey: caseKeys.all });
    },
  });
  return {
    update: (changes: CaseChanges) => mutation.mutate({ changes, base: detail }),
    updateAsync: (changes: CaseChanges) => mutation.mutateAsync({ changes, base: detail }),
    pending: mutation.isPending,
    /** The last failure, unless it was a version conflict (`conflict` tells that one). */
    error: mutation.error instanceof ApiError && mutation.error.code === 'version_conflict' ? null : mutation.error,
    conflict,
    reset: () => {
      mutation.reset();
      setConflict(null);
    },
  };
}

export type CaseUpdate = ReturnType<typeof useCaseUpdate>;
