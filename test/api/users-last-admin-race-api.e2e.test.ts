// The last admin stays under concurrency, on SQLite and PostgreSQL: two requests that each take
// one of the tenant's two admins away (disabling, demoting or deleting), sent at the same moment,
// never both succeed. Each round one wins, the other is refused 409 `user_change_refused`, and
// the tenant keeps exactly one active admin.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, issueToken, problemBody, type ApiClient, type ApiResponse } from '../helpers/api.js';
import type { ManagedUser } from '../../src/identity/users/user-admin-service.js';

const ROUNDS = 50;

type Removal = 'disable' | 'demote' | 'delete';
const removals: Removal[] = ['disable', 'demote', 'delete'];

for (const target of databaseTargets) {
  describe(`the last admin under concurrent changes on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let client: ApiClient;
    before(async () => {
      // A token made from the command line has no person behind it: it may remove any admin.
      client = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme)).value));
    });

    // Invited (no password to hash): an invited admin counts as one until disabled or deleted.
    const addAdmin = async (email: string): Promise<string> => {
      const created = await client.post<{ user: ManagedUser }>('/v1/users', { email, role: 'admin' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.user.id;
    };
    const remove = (id: string, how: Removal): Promise<ApiResponse> =>
      how === 'delete'
        ? client.delete(`/v1/users/${id}`)
        : client.patch(`/v1/users/${id}`, how === 'disable' ? { disabled: true } : { role: 'viewer' });
    const activeAdmins = async (): Promise<string[]> => {
      const listed = await client.get<{ users: ManagedUser[] }>('/v1/users?status=active&limit=200');
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      return listed.body.users.filter((user) => user.role === 'admin').map((user) => user.id);
    };

    test(`of two concurrent removals of the last two admins exactly one wins, ${ROUNDS} times`, async () => {
      let kept = await addAdmin('first-admin@acme.test');
      for (let round = 0; round < ROUNDS; round += 1) {
        const other = await addAdmin(`admin-${round}@acme.test`);
        const pair: [string, Removal][] = [
          [kept, removals[round % 3]!],
          [other, removals[(round + 1) % 3]!],
        ];
        const answers = await Promise.all(pair.map(([id, how]) => remove(id, how)));
        const won = answers.filter((answer) => answer.status === 200 || answer.status === 204);
        const refused = answers.filter((answer) => answer.status === 409);
        assert.deepEqual(
          [won.length, refused.length],
          [1, 1],
          `round ${round} (${pair.map(([, how]) => how).join(' and ')}): ${answers.map((a) => a.status).join(', ')}`,
        );
        assert.equal(problemBody(refused[0]!).code, 'user_change_refused');
        const left = await activeAdmins();
        assert.equal(left.length, 1, `round ${round}: the tenant has ${left.length} active admins`);
        kept = left[0]!;
      }
    });
  });
}
