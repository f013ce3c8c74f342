// A publish acknowledgement counts as "stored" only when it names the message's place in the
// stream: an older clustered NATS server could answer a message id it had only proposed so far as
// a duplicate of sequence 0 (newer ones answer an error), and that proposal can still be lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { confirmsStored } from './jetstream-queue.js';

test('a duplicate answer counts as stored only with a stream sequence', () => {
  assert.equal(confirmsStored({ duplicate: false, seq: 12 }), true, 'a new message');
  assert.equal(confirmsStored({ duplicate: true, seq: 12 }), true, 'a duplicate of a stored message');
  assert.equal(confirmsStored({ duplicate: true, seq: 0 }), false, 'a duplicate of a message only proposed');
});
