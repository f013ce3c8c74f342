// Settings › Case work: the tenant's SLA policy (per severity, the time to acknowledge and to
// resolve a case) and its case templates (the tasks, tags and severity a case gets by rule,
// technique, level or tag). Everyone who reads cases sees them; admins change them.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import { useSession } from '../../app/session';
import { QueryView } from '../../components/QueryView';
import { Button, Field, Notice, PageHeader, Panel } from '../../components/ui';
import { humanize } from '../../lib/format';
import {
  parseSpan,
  parseTasks,
  showSpan,
  slaSeverities,
  words,
  type SlaPolicy,
  type TemplateInput,
} from './case-work-forms';
import './settings.css';

interface Template extends Omit<TemplateInput, 'tasks'> {
  id: string;
  tasks: { title: string; required: boolean }[];
}

function SlaForm({ policy, canWrite }: { policy: SlaPolicy; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const [spans, setSpans] = useState(() =>
    Object.fromEntries(
      slaSeverities.flatMap((severity) => [
        [`${severity}.acknowledge`, policy[severity] ? showSpan(policy[severity].acknowledge_s) : ''],
        [`${severity}.resolve`, policy[severity] ? showSpan(policy[severity].resolve_s) : ''],
      ]),
    ),
  );
  const save = useMutation({
    mutationFn: (next: SlaPolicy) => api.put<SlaPolicy>('/v1/sla-policy', next),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sla-policy'] }),
  });
  const problems: string[] = [];
  const next: SlaPolicy = {};
  for (const severity of slaSeverities) {
    const acknowledge = parseSpan(spans[`${severity}.acknowledge`] ?? '');
    const resolve = parseSpan(spans[`${severity}.resolve`] ?? '');
    if (acknowledge === undefined || resolve === undefined)
      problems.push(`${humanize(severity)}: write times as 15m, 4h or 2d`);
    else if ((acknowledge === null) !== (resolve === null))
      problems.push(`${humanize(severity)}: give both times or neither`);
    else if (acknowledge !== null && resolve !== null)
      next[severity] = { acknowledge_s: acknowledge, resolve_s: resolve };
  }
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (problems.length === 0) save.mutate(next);
      }}
    >
      <table className="sla-table">
        <thead>
          <tr>
            <th scope="col">Severity</th>
            <th scope="col">Acknowledge within</th>
            <th scope="col">Resolve within</th>
          </tr>
        </thead>
        <tbody>
          {slaSeverities.map((severity) => (
            <tr key={severity}>
              <th scope="row">{humanize(severity)}</th>
              {(['acknowledge', 'resolve'] as const).map((clock) => (
                <td key={clock}>
                  <input
                    aria-label={`${humanize(clock)} ${severity} cases within`}
                    value={spans[`${severity}.${clock}`] ?? ''}
                    placeholder="no SLA"
                    disabled={!canWrite}
                    onChange={(event) => setSpans((old) => ({ ...old, [`${severity}.${clock}`]: event.target.value }))}
                  />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {problems.length > 0 && <Notice tone="warning">{problems.join('. ')}.</Notice>}
      {save.error && <Notice tone="danger">{errorMessage(save.error)}</Notice>}
      {save.isSuccess && <Notice tone="success">Saved: every case's clocks follow it now.</Notice>}
      {canWrite && (
        <Button type="submit" variant="primary" disabled={problems.length > 0 || save.isPending}>
          Save the SLA policy
        </Button>
      )}
    </form>
  );
}

function NewTemplate() {
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ name: '', rules: '', techniques: '', tags: '', caseTags: '', tasks: '' });
  const set = (field: keyof typeof form) => (event: { target: { value: string } }) =>
    setForm((old) => ({ ...old, [field]: event.target.value }));
  const create = useMutation({
    mutationFn: () =>
      api.post<Template>('/v1/case-templates', {
        name: form.name.trim(),
        applies_to: {
          rule_ids: words(form.rules),
          techniques: words(form.techniques).map((t) => t.toUpperCase()),
          tags: words(form.tags),
        },
        tasks: parseTasks(form.tasks),
        tags: words(form.caseTags),
      }),
    onSuccess: async () => {
      setForm({ name: '', rules: '', techniques: '', tags: '', caseTags: '', tasks: '' });
      await queryClient.invalidateQueries({ queryKey: ['case-templates'] });
    },
  });
  return (
    <form
      className="template-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (form.name.trim()) create.mutate();
      }}
    >
      <Field label="Name">
        <input value={form.name} maxLength={200} onChange={set('name')} />
      </Field>
      <Field label="Applies to rule ids" hint="Comma-separated; any observation of one of them">
        <input value={form.rules} onChange={set('rules')} />
      </Field>
      <Field label="Applies to techniques" hint="Such as T1190, T1059 (a sub-technique matches its parent)">
        <input value={form.techniques} onChange={set('techniques')} />
      </Field>
      <Field label="Applies to case tags" hint="When a case is tagged with one of them">
        <input value={form.tags} onChange={set('tags')} />
      </Field>
      <Field label="Tasks" hint='One per line; end a line with "(required)" to require it before closing'>
        <textarea rows={4} value={form.tasks} onChange={set('tasks')} />
      </Field>
      <Field label="Tags the case gets">
        <input value={form.caseTags} onChange={set('caseTags')} />
      </Field>
      {create.error && <Notice tone="danger">{errorMessage(create.error)}</Notice>}
      <Button type="submit" variant="primary" disabled={!form.name.trim() || create.isPending}>
        Create the template
      </Button>
    </form>
  );
}

function TemplateList({ templates, canWrite }: { templates: Template[]; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => api.delete(`/v1/case-templates/${id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['case-templates'] }),
  });
  if (templates.length === 0) return <p className="muted">No case templates yet.</p>;
  return (
    <ul className="template-list" aria-label="Case templates">
      {templates.map((template) => {
        const on = [
          ...(template.applies_to?.rule_ids ?? []).map((id) => `rule ${id}`),
          ...(template.applies_to?.techniques ?? []),
          ...(template.applies_to?.levels ?? []).map((level) => `level ${level}`),
          ...(template.applies_to?.tags ?? []).map((tag) => `tag ${tag}`),
        ];
        return (
          <li key={template.id}>
            <strong>{template.name}</strong>{' '}
            <span className="muted">
              {template.tasks.length} task{template.tasks.length === 1 ? '' : 's'} ·{' '}
              {on.length > 0 ? `applies on ${on.join(', ')}` : 'by hand only'}
            </span>
            <ol>
              {template.tasks.map((task) => (
                <li key={task.title}>
                  {task.title}
                  {task.required && <span className="faint"> (required)</span>}
                </li>
              ))}
            </ol>
            {canWrite && (
              <Button
                small
                variant="ghost"
                aria-label={`Delete ${template.name}`}
                onClick={() => remove.mutate(template.id)}
              >
                Delete
              </Button>
            )}
          </li>
        );
      })}
    </ul>
  );
}

export default function CaseWorkPage() {
  const { can } = useSession();
  const canWrite = can('case_settings:write');
  const policy = useQuery({ queryKey: ['sla-policy'], queryFn: () => api.get<SlaPolicy>('/v1/sla-policy') });
  const templates = useQuery({
    queryKey: ['case-templates'],
    queryFn: () => api.get<{ templates: Template[] }>('/v1/case-templates'),
  });
  return (
    <>
      <PageHeader
        trail={['Settings']}
        title="Case work"
        subtitle="SLAs and the templates that give cases their tasks"
      />
      <Panel title="SLA policy">
        <p className="muted">
          How long a case may stay new (acknowledge) and open (resolve), by severity. Time on hold does not count
          towards resolving. A severity left empty has no SLA.
        </p>
        <QueryView query={policy} loading="Loading the SLA policy" error="Could not load the SLA policy">
          {(data) => <SlaForm policy={data} canWrite={canWrite} />}
        </QueryView>
      </Panel>
      <Panel title="Case templates">
        <QueryView query={templates} loading="Loading the templates" error="Could not load the templates">
          {(data) => <TemplateList templates={data.templates} canWrite={canWrite} />}
        </QueryView>
      </Panel>
      {canWrite && (
        <Panel title="New case template">
          <NewTemplate />
        </Panel>
      )}
    </>
  );
}
