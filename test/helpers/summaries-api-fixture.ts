// The shared set-up of the AI summaries API suites: a server on one database target whose
// OpenAI-compatible provider is a local fake model (each tenant is set to it, or left on the builtin
// default, by the operator), a platform operator, and helpers that generate and read summaries,
// asserting each answer's status.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { closeOpened } from './suite.js';
import type { DatabaseTarget, TestDatabase } from './databases.js';
import { startServer, type TestServer } from './server.js';
import { signIn, problemBody, type ApiClient, type ApiResponse, type Problem, type Session } from './api.js';
import type { CaseDetail } from './responses.js';
import { openAiCompletion, startFakeLlm, type FakeLlm, type FakeLlmReply, type FakeLlmRequest } from './fake-llm.js';
import { sentPrompt, wellFormedReply, type SentPrompt } from './summaries.js';
import type { SummaryView } from '../../src/summaries/summary-view.js';

export const MODEL = 'fake-gpt';
export const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
export const headingsOf = (text: string) => [...text.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
export const sorted = (values: readonly string[]) => [...values].sort();

/** Asserts the status and the problem's code; returns the problem. */
export function problem(response: ApiResponse, status: number, code: string): Problem {
  assert.equal(response.status, status, JSON.stringify(response.body));
  const body = problemBody(response);
  assert.equal(body.code, code);
  return body;
}

export interface SummariesApiFixture {
  /** Set once the suite's `before` hook ran. */
  readonly database: TestDatabase;
  readonly server: TestServer;
  readonly operator: Session;
  /** Per tenant code name: how the fake model answers it (default: a well-formed summary). */
  readonly replies: Map<string, (prompt: SentPrompt) => FakeLlmReply>;
  /** What the fake model was sent for one tenant. */
  sentFor: (codeName: string) => FakeLlmRequest[];
  generate: (client: ApiClient, caseId: string, headers?: Record<string, string>) => Promise<ApiResponse<SummaryView>>;
  /** Generates and asserts 201. */
  generated: (client: ApiClient, caseId: string, headers?: Record<string, string>) => Promise<SummaryView>;
  current: (client: ApiClient, caseId: string) => Promise<SummaryView>;
  detail: (client: ApiClient, caseId: string) => Promise<CaseDetail>;
  userId: (email: string) => Promise<string>;
}

/** Registers the suite's before/after hooks (call inside `describe`) and returns its helpers. */
export function useSummariesApi(target: DatabaseTarget): SummariesApiFixture {
  let database: TestDatabase | undefined;
  let server: TestServer | undefined;
  let operator: Session | undefined;
  let llm: FakeLlm | undefined;
  const replies = new Map<string, (prompt: SentPrompt) => FakeLlmReply>();
  const ready = <T>(value: T | undefined): T => {
    assert.ok(value !== undefined, 'the suite has started');
    return value;
  };

  before(async () => {
    database = await target.create();
    llm = await startFakeLlm({
      kind: 'openai',
      respond: (request) => {
        const prompt = sentPrompt(request);
        const reply = replies.get(prompt.data.customer.code_name);
        return reply ? reply(prompt) : { body: openAiCompletion({ text: wellFormedReply(prompt.data), model: MODEL }) };
      },
    });
    server = await startServer(database, { openaiBaseUrl: llm.baseUrl, openaiModel: MODEL });
    operator = await signIn(server, {
      tenant: null,
      role: 'operator',
      email: `operator-${target.kind}@platform.example`,
    });
  });
  after(() => closeOpened(server, llm, database));

  const generate = (client: ApiClient, caseId: string, headers?: Record<string, string>) =>
    client.post<SummaryView>(`/v1/cases/${caseId}/summary`, {}, headers);

  return {
    get database() {
      return ready(database);
    },
    get server() {
      return ready(server);
    },
    get operator() {
      return ready(operator);
    },
    replies,
    sentFor: (codeName) =>
      ready(llm).requests.filter((request) => sentPrompt(request).data.customer.code_name === codeName),
    generate,
    generated: async (client, caseId, headers) => {
      const response = await generate(client, caseId, headers);
      assert.equal(response.status, 201, JSON.stringify(response.body));
      return response.body;
    },
    current: async (client, caseId) => {
      const response = await client.get<SummaryView>(`/v1/cases/${caseId}/summary`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body;
    },
    detail: async (client, caseId) => {
      const response = await client.get<CaseDetail>(`/v1/cases/${caseId}`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body;
    },
    userId: async (email) => {
      const row = await ready(server)
        .sightline.database.db.selectFrom('users')
        .select('id')
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
      return row.id;
    },
  };
}
