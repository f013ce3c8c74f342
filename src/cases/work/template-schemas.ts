// The API shapes of case templates and the tasks on cases.
import { Type, type Static } from 'typebox';

export const taskStatuses = ['todo', 'in_progress', 'done', 'not_applicable'] as const;
export type TaskStatus = (typeof taskStatuses)[number];
const TaskStatusSchema = Type.Union(
  [Type.Literal('todo'), Type.Literal('in_progress'), Type.Literal('done'), Type.Literal('not_applicable')],
  { description: 'todo, in_progress, done or not_applicable' },
);
const LevelSchema = Type.Union([
  Type.Literal('informational'),
  Type.Literal('low'),
  Type.Literal('medium'),
  Type.Literal('high'),
  Type.Literal('critical'),
]);

const Tag = Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\s,]+$' });

export const AppliesTo = Type.Object(
  {
    rule_ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 })),
    techniques: Type.Optional(
      Type.Array(Type.String({ pattern: '^T\\d{4}(\\.\\d{3})?$', description: 'An ATT&CK technique id' }), {
        maxItems: 100,
      }),
    ),
    tags: Type.Optional(Type.Array(Tag, { maxItems: 50 })),
    levels: Type.Optional(Type.Array(LevelSchema, { maxItems: 5 })),
  },
  {
    additionalProperties: false,
    description:
      'When the template applies by itself: a case gets it once, when an observation of one of these rules, techniques or levels joins it, or when it is tagged with one of these tags. Empty: by hand only (`POST /v1/cases/{case_id}/templates`).',
  },
);
export type AppliesTo = Static<typeof AppliesTo>;

export const TemplateTask = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 10_000, description: 'Markdown' })),
    required: Type.Optional(
      Type.Boolean({ description: 'A case closes with it open only when forced (default false)' }),
    ),
    assignee_role: Type.Optional(
      Type.Union([Type.Literal('analyst'), Type.Literal('admin')], { description: 'Who is expected to do it' }),
    ),
  },
  { additionalProperties: false },
);

export const TemplateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    applies_to: Type.Optional(AppliesTo),
    tasks: Type.Array(TemplateTask, { maxItems: 50 }),
    tags: Type.Optional(Type.Array(Tag, { maxItems: 20, description: 'Tags the case gets' })),
    severity: Type.Optional(
      Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high'), Type.Literal('critical')], {
        description: 'The severity the case is raised to (never lowered; a severity a person set stays)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TemplateBody = Static<typeof TemplateBody>;

export const TemplateSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  applies_to: AppliesTo,
  tasks: Type.Array(
    Type.Object({
      title: Type.String(),
      description: Type.String(),
      required: Type.Boolean(),
      assignee_role: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  tags: Type.Array(Type.String()),
  severity: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  created_by: Type.String(),
});

export const TaskSchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  required: Type.Boolean(),
  status: TaskStatusSchema,
  assignee_role: Type.Union([Type.String(), Type.Null()]),
  assignee: Type.Union([Type.Object({ id: Type.String(), email: Type.String(), name: Type.String() }), Type.Null()]),
  due_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  completed_by: Type.Union([Type.String(), Type.Null()]),
  template: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const NewTaskBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    required: Type.Optional(Type.Boolean()),
    assignee: Type.Optional(Type.Union([Type.String({ maxLength: 254 }), Type.Null()])),
    due_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type NewTaskBody = Static<typeof NewTaskBody>;

export const TaskChangeBody = Type.Object(
  {
    status: Type.Optional(TaskStatusSchema),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    required: Type.Optional(Type.Boolean()),
    assignee: Type.Optional(
      Type.Union([Type.String({ maxLength: 254 }), Type.Null()], { description: 'A user id or email; null unassigns' }),
    ),
    due_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type TaskChangeBody = Static<typeof TaskChangeBody>;

const SlaClockSchema = Type.Object({
  target_s: Type.Integer({ description: 'The policy time, in seconds' }),
  due_at: Type.String({ format: 'date-time', description: 'When it runs out (moves later while on hold)' }),
  remaining_s: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Seconds left, negative once breached; null once the clock stopped',
  }),
  breached: Type.Boolean(),
  stopped_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When it stopped: acknowledged (left new), or closed',
  }),
  paused: Type.Boolean({ description: 'The resolve clock while the case is on hold' }),
});

export const CaseSlaSchema = Type.Union(
  [Type.Object({ acknowledge: SlaClockSchema, resolve: SlaClockSchema }), Type.Null()],
  {
    description:
      "The case's SLA clocks under the tenant's policy for its severity (`PUT /v1/sla-policy`); null when that severity has none. Acknowledge runs from creation until the case leaves new; resolve until it closes, paused on hold.",
  },
);

const SlaTarget = Type.Object(
  {
    acknowledge_s: Type.Integer({
      minimum: 1,
      maximum: 31_536_000,
      description: 'Seconds from creation to leaving new',
    }),
    resolve_s: Type.Integer({
      minimum: 1,
      maximum: 31_536_000,
      description: 'Seconds from creation to closed, time on hold not counted',
    }),
  },
  { additionalProperties: false },
);

export const SlaPolicySchema = Type.Object(
  {
    low: Type.Optional(SlaTarget),
    medium: Type.Optional(SlaTarget),
    high: Type.Optional(SlaTarget),
    critical: Type.Optional(SlaTarget),
  },
  {
    additionalProperties: false,
    examples: [
      {
        critical: { acknowledge_s: 900, resolve_s: 14_400 },
        high: { acknowledge_s: 3_600, resolve_s: 86_400 },
        medium: { acknowledge_s: 14_400, resolve_s: 259_200 },
      },
    ],
  },
);
export type SlaPolicyBody = Static<typeof SlaPolicySchema>;
