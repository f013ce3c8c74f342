// The tasks on a case, in order: from its templates (named) or added by hand. Each has a status
// (to do, in progress, done, not applicable), maybe an assignee, a role and a due time; a
// required one must be done or not applicable before the case closes. Analysts change them here.
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { Badge, Button, ErrorState, Panel, Time } from '../../components/ui';
import { humanize } from '../../lib/format';
import { caseKeys } from './api';
import type { CaseDetail } from './types';

type Task = CaseDetail['tasks'][number];
const taskStatuses: Task['status'][] = ['todo', 'in_progress', 'done', 'not_applicable'];
const statusLabel: Record<Task['status'], string> = {
  todo: 'To do',
  in_progress: 'In progress',
  done: 'Done',
  not_applicable: 'Not applicable',
};

function useTaskWrites(caseId: string) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: caseKeys.all });
  const change = useMutation({
    mutationFn: ({ id, changes }: { id: string; changes: Partial<Pick<Task, 'status'>> }) =>
      api.patch<Task>(`/v1/cases/${caseId}/tasks/${id}`, changes),
    onSuccess: refresh,
  });
  const add = useMutation({
    mutationFn: (task: { title: string; required: boolean }) => api.post<Task>(`/v1/cases/${caseId}/tasks`, task),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: string) => api.delete(`/v1/cases/${caseId}/tasks/${id}`),
    onSuccess: refresh,
  });
  return { change, add, remove };
}

function TaskItem({
  task,
  writes,
  canWrite,
}: {
  task: Task;
  writes: ReturnType<typeof useTaskWrites>;
  canWrite: boolean;
}) {
  const closed = task.status === 'done' || task.status === 'not_applicable';
  return (
    <li className={`task ${closed ? 'task-closed' : ''}`.trim()} data-task={task.title}>
      <div className="task-line">
        {canWrite ? (
          <select
            aria-label={`Status of ${task.title}`}
            value={task.status}
            disabled={writes.change.isPending}
            onChange={(event) =>
              writes.change.mutate({ id: task.id, changes: { status: event.target.value as Task['status'] } })
            }
          >
            {taskStatuses.map((status) => (
              <option key={status} value={status}>
                {statusLabel[status]}
              </option>
            ))}
          </select>
        ) : (
          <Badge tone={closed ? 'success' : 'neutral'}>{statusLabel[task.status]}</Badge>
        )}
        <span className="task-title">{task.title}</span>
        {task.required && <Badge tone="warning">Required</Badge>}
        {canWrite && !task.template && (
          <Button
            small
            variant="ghost"
            aria-label={`Remove ${task.title}`}
            onClick={() => writes.remove.mutate(task.id)}
          >
            Remove
          </Button>
        )}
      </div>
      <div className="task-meta faint">
        {[
          task.template && `from ${task.template.name}`,
          task.assignee_role && `for an ${humanize(task.assignee_role).toLowerCase()}`,
          task.assignee && `assigned to ${task.assignee.name}`,
        ]
          .filter(Boolean)
          .join(' · ')}
        {task.due_at && (
          <>
            {' '}
            · due <Time iso={task.due_at} exact />
          </>
        )}
        {task.completed_at && (
          <>
            {' '}
            · {statusLabel[task.status].toLowerCase()} by {task.completed_by} <Time iso={task.completed_at} />
          </>
        )}
      </div>
    </li>
  );
}

function AddTask({ writes }: { writes: ReturnType<typeof useTaskWrites> }) {
  const [title, setTitle] = useState('');
  const [required, setRequired] = useState(false);
  const submit = () => {
    const text = title.trim();
    if (!text) return;
    writes.add.mutate({ title: text, required }, { onSuccess: () => setTitle('') });
  };
  return (
    <form
      className="task-add"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <input
        aria-label="New task"
        placeholder="Add a task"
        value={title}
        maxLength={200}
        onChange={(event) => setTitle(event.target.value)}
      />
      <label className="task-required">
        <input type="checkbox" checked={required} onChange={(event) => setRequired(event.target.checked)} /> Required
      </label>
      <Button small type="submit" disabled={!title.trim() || writes.add.isPending}>
        Add task
      </Button>
    </form>
  );
}

export function TasksPanel({ detail, canWrite }: { detail: CaseDetail; canWrite: boolean }) {
  const writes = useTaskWrites(detail.id);
  const open = detail.tasks.filter((task) => task.status !== 'done' && task.status !== 'not_applicable').length;
  const error = writes.change.error ?? writes.add.error ?? writes.remove.error;
  if (detail.tasks.length === 0 && !canWrite) return null;
  return (
    <Panel title={`Tasks (${open} open of ${detail.tasks.length})`}>
      {error && <ErrorState error={error} title="The task was not saved" />}
      {detail.tasks.length === 0 ? (
        <p className="muted">No tasks. A case template adds them by rule, technique or tag; or add one here.</p>
      ) : (
        <ul className="task-list" aria-label="Tasks">
          {detail.tasks.map((task) => (
            <TaskItem key={task.id} task={task} writes={writes} canWrite={canWrite} />
          ))}
        </ul>
      )}
      {canWrite && <AddTask writes={writes} />}
    </Panel>
  );
}
