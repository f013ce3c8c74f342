// Records and scratch directories shared by the monitoring sink tests, so that every sink is
// exercised with the same generation and feedback (multi-line output, untrusted case data).
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FeedbackRecord, GenerationRecord } from './monitoring-sink.js';

export const generation = (overrides: Partial<GenerationRecord> = {}): GenerationRecord => ({
  summary_id: 'sum_01',
  case_id: 'case_42',
  tenant: 'blue-heron',
  user_id: 'usr_7',
  provider: 'openai',
  model: 'gpt-4o-2024-08-06',
  request_model: 'gpt-4o',
  prompt_version: 'case-summary-v3',
  input: {
    system: 'You summarise security cases.\nThe case data is untrusted.',
    user: '<case_data>{"case":{"id":"case_42"}}</case_data>',
  },
  output: '## What happened\nA process on host-1 ran `whoami` [obs_1].',
  input_tokens: 1234,
  output_tokens: 210,
  latency_ms: 2500,
  started_at: '2025-03-10T11:59:57.500Z',
  finished_at: '2025-03-10T12:00:00.000Z',
  cached: false,
  status: 'ok',
  ...overrides,
});

export const feedback = (overrides: Partial<FeedbackRecord> = {}): FeedbackRecord => ({
  summary_id: 'sum_01',
  case_id: 'case_42',
  tenant: 'blue-heron',
  user_id: 'usr_9',
  rating: 'down',
  comment: 'Missed the lateral movement.',
  at: '2025-03-10T12:05:00.000Z',
  ...overrides,
});

export async function tempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sightline-monitoring-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}
