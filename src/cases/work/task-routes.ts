// /v1/cases/{case_id}/tasks and /v1/cases/{case_id}/templates: the tasks on a case (list, add,
// change, remove) and applying a template by hand. Each write locks the case's row (grouping may
// be applying a template to it at the same moment) and is recorded in its history.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf, tenantOf } from '../../identity/auth.js';
import { actorOf, type AuditActor } from '../../identity/principal.js';
import { problemResponse } from '../../http/schemas.js';
import { writeTransaction } from '../../storage/write-transaction.js';
import type { CasesDeps } from '../case-context.js';
import { lockCases, type CaseRow, type Db } from '../case-store.js';
import { requireCase } from '../case-service.js';
import { CaseParams } from '../case-schemas.js';
import { addTask, changeTask, MAX_TASKS_PER_CASE, removeTask } from './task-service.js';
import { listTasks, presentTasks, type TaskRow } from './task-view.js';
import { NewTaskBody, TaskChangeBody, TaskSchema } from './template-schemas.js';
import { requireTemplate } from './template-service.js';
import { applyTemplate } from './template-apply.js';

const TaskParams = Type.Object({
  ...CaseParams.properties,
  task_id: Type.String({ maxLength: 64, description: 'Task id (`task_…`)' }),
});
const TaskList = Type.Object({ tasks: Type.Array(TaskSchema) });
const tags = ['Cases'];

export function caseTaskRoutes(app: FastifyInstance, deps: CasesDeps): void {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, locks } = deps;
  const read = { access: { scope: 'tenant', permission: 'cases:read' } } as const;
  const write = { access: { scope: 'tenant', permission: 'cases:write' } } as const;

  /** Runs `work` in a transaction holding the case's row. */
  const onCase = <T>(
    request: FastifyRequest,
    caseRef: string,
    work: (trx: Db, row: CaseRow, actor: AuditActor, now: number) => Promise<T>,
  ) => {
    const tenantId = tenantOf(request).id;
    const actor = actorOf(principalOf(request));
    return writeTransaction(db, async (trx) => {
      const found = await requireCase(trx, tenantId, caseRef);
      const [row] = await lockCases(trx, locks, tenantId, [found.id]);
      return work(trx, row ?? found, actor, Date.now());
    });
  };
  const present = async (tenantId: number, caseId: string) =>
    presentTasks(db, tenantId, await listTasks(db, tenantId, caseId));
  const presentTask = async (tenantId: number, task: TaskRow) => {
    const [view] = await presentTasks(db, tenantId, [task]);
    if (!view) throw new Error(`task ${task.id} could not be presented`);
    return view;
  };

  routes.get(
    '/cases/:case_id/tasks',
    {
      config: read,
      schema: {
        tags,
        summary: "List a case's tasks",
        description: 'In order.',
        params: CaseParams,
        response: { 200: TaskList },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request).id;
      const row = await requireCase(db, tenantId, request.params.case_id);
      return { tasks: await present(tenantId, row.id) };
    },
  );

  routes.post(
    '/cases/:case_id/tasks',
    {
      config: write,
      schema: {
        tags,
        summary: 'Add a task',
        description: `Appends a task (at most ${MAX_TASKS_PER_CASE} per case). A required task must be done or not applicable before the case closes, unless the close is forced with a reason.`,
        params: CaseParams,
        body: NewTaskBody,
        response: {
          201: TaskSchema,
          400: problemResponse('The assignee is not an active user of the tenant', 'unknown_assignee'),
        },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request).id;
      const task = await onCase(request, request.params.case_id, (trx, row, actor, now) =>
        addTask(trx, tenantId, row.id, request.body, actor, now),
      );
      return reply.code(201).send(await presentTask(tenantId, task));
    },
  );

  routes.patch(
    '/cases/:case_id/tasks/:task_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Change a task',
        description:
          'Status (todo, in_progress, done, not_applicable: the last two record who and when), title, description, required, assignee, due time.',
        params: TaskParams,
        body: TaskChangeBody,
        response: { 200: TaskSchema },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request).id;
      const task = await onCase(request, request.params.case_id, (trx, row, actor, now) =>
        changeTask(trx, tenantId, row.id, request.params.task_id, request.body, actor, now),
      );
      return presentTask(tenantId, task);
    },
  );

  routes.delete(
    '/cases/:case_id/tasks/:task_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Remove a task',
        params: TaskParams,
        response: { 204: Type.Null({ description: 'Removed' }) },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request).id;
      await onCase(request, request.params.case_id, (trx, row, actor, now) =>
        removeTask(trx, tenantId, row.id, request.params.task_id, actor, now),
      );
      return reply.code(204).send(null);
    },
  );

  routes.post(
    '/cases/:case_id/templates',
    {
      config: write,
      schema: {
        tags,
        summary: 'Apply a template',
        description:
          "Gives the case a template's tasks, tags and severity by hand; a case gets each template once (`applied: false` when it had it).",
        params: CaseParams,
        body: Type.Object({ template_id: Type.String({ maxLength: 64 }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ applied: Type.Boolean(), tasks: Type.Array(TaskSchema) }) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request).id;
      const { applied, caseId } = await onCase(request, request.params.case_id, async (trx, row, actor, now) => {
        const template = await requireTemplate(trx, tenantId, request.body.template_id);
        return { applied: await applyTemplate(trx, row, template, 'manual', actor, now), caseId: row.id };
      });
      return { applied, tasks: await present(tenantId, caseId) };
    },
  );
}
