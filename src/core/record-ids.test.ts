// Public record ids hide the global sequence: unique, reversible only with the key, in no
// order a tenant could count by, and an invented or edited id decodes to nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { recordId, recordIds, recordSeq, setRecordIdKey } from './record-ids.js';

test('ids round-trip, are unique, and follow no order of the sequence', () => {
  setRecordIdKey(randomBytes(16));
  const seqs = Array.from({ length: 5_000 }, (_, i) => i + 1);
  const ids = recordIds(seqs);
  assert.equal(new Set(ids).size, ids.length);
  let showingTheirNumber = 0;
  for (const [i, id] of ids.entries()) {
    assert.match(id, /^rec_[A-Za-z0-9_-]{22}$/);
    assert.equal(recordSeq(id), seqs[i]);
    if (id.includes(String(seqs[i]).padStart(4, '0'))) showingTheirNumber += 1;
  }
  // Random text holds a given four digits about once in a million ids; a readable sequence in all.
  assert.ok(showingTheirNumber <= 2, `${showingTheirNumber} ids show their own sequence number`);
  assert.equal(recordId(4_242), ids[4_241]);
  // Sorted ids are not the sequence's order: neighbours are far apart.
  const sorted = [...ids].sort();
  const positions = sorted.slice(0, 50).map((id) => recordSeq(id) ?? 0);
  assert.ok(
    positions.some((seq, i) => i > 0 && Math.abs(seq - (positions[i - 1] ?? 0)) > 100),
    positions.join(),
  );
});

test('an invented, edited or foreign id names no record', () => {
  setRecordIdKey(randomBytes(16));
  const id = recordId(77);
  assert.equal(recordSeq(id), 77);
  for (const bad of ['77', 'rec_77', `rec_${'A'.repeat(22)}`, `${id}x`, id.slice(0, -1), `rec_${id.slice(5)}=`])
    assert.equal(recordSeq(bad), undefined, bad);
  const edited = `rec_${id[4] === 'B' ? 'C' : 'B'}${id.slice(5)}`;
  assert.equal(recordSeq(edited), undefined, 'an edited id decrypts to a block whose upper half is not zero');
  setRecordIdKey(randomBytes(16));
  assert.equal(recordSeq(id), undefined, "another deployment's id");
});
