// Public ids of stored records. Records are numbered by one sequence across all tenants (the
// record log's order), so showing that number would let a tenant count everyone's traffic by
// comparing the ids of two of its own records. The public id is the number encrypted under the
// deployment's record-id key (AES-128 on one block: a keyed permutation, so ids stay unique and
// decode without a lookup), `rec_` + 22 base64url characters. The upper half of the block must
// decrypt to zero, so an invented or edited id is recognised as no id at all. The key lives in
// the database (storage/instance-settings.ts); every process that shows ids loads it first.
import { createCipheriv, createDecipheriv, randomBytes, type Cipher, type Decipher } from 'node:crypto';

const PREFIX = 'rec_';
const ENCODED_LENGTH = 22;

interface Codec {
  cipher: Cipher;
  decipher: Decipher;
}

function codecFor(key: Buffer): Codec {
  // ECB on exactly one block: each id is one independent block, no chaining, no padding.
  const cipher = createCipheriv('aes-128-ecb', key, null).setAutoPadding(false);
  const decipher = createDecipheriv('aes-128-ecb', key, null).setAutoPadding(false);
  return { cipher, decipher };
}

/** Until the deployment's key is set, a process-local one (unit tests, tools without a database). */
let codec: Codec = codecFor(randomBytes(16));

/** Sets the key record ids are made with (16 bytes); every process calls it once at start. */
export function setRecordIdKey(key: Buffer): void {
  if (key.length !== 16) throw new Error('the record-id key must be 16 bytes');
  codec = codecFor(key);
}

/** The public id of the record with this sequence number. */
export function recordId(seq: number): string {
  const [id] = recordIds([seq]);
  if (id === undefined) throw new Error('recordIds returned no id');
  return id;
}

/** The public ids of many records at once (one cipher call for a whole page: ~0.7 µs a record). */
export function recordIds(seqs: readonly number[]): string[] {
  const blocks = Buffer.alloc(16 * seqs.length);
  seqs.forEach((seq, i) => blocks.writeBigUInt64BE(BigInt(seq), i * 16 + 8));
  const sealed = codec.cipher.update(blocks);
  return seqs.map((_, i) => PREFIX + sealed.toString('base64url', i * 16, i * 16 + 16));
}

/** The sequence number a public id stands for, or undefined when it is not one we made. */
export function recordSeq(id: string): number | undefined {
  if (!id.startsWith(PREFIX) || id.length !== PREFIX.length + ENCODED_LENGTH) return undefined;
  const block = Buffer.from(id.slice(PREFIX.length), 'base64url');
  if (block.length !== 16 || block.toString('base64url') !== id.slice(PREFIX.length)) return undefined;
  const plain = codec.decipher.update(block);
  if (plain.readBigUInt64BE(0) !== 0n) return undefined;
  const seq = plain.readBigUInt64BE(8);
  return seq > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : Number(seq);
}
