// Reads a collector request body within its limits: the media type is checked, the bytes as
// sent are capped, and a compressed body (gzip, deflate, br) is inflated with a cap on its
// decompressed size, so that a decompression bomb answers 413 instead of exhausting memory.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { AppError, overloaded } from '../../core/errors.js';

export interface BodyLimits {
  maxBodyBytes: number;
}

/**
 * Memory held by request bodies being read and parsed, across all requests. Past its limit new
 * bodies are refused with 503, so many slow or concurrent uploads cannot exhaust memory. A
 * request that is the only one holding bytes is always admitted, so no request within the size
 * limits is refused for good.
 */
export class BodyBudget {
  private used = 0;

  constructor(private readonly limit: number) {}

  /** Reserves `bytes` for a request already holding `held`; throws `overloaded` when spent. */
  take(bytes: number, held: number): void {
    if (!this.fits(bytes, held)) throw overloaded('the collector is reading as many request bodies as it can hold');
    this.used += bytes;
  }

  /** Whether `bytes` more would fit now for a request holding `held` (the only holder always fits). */
  fits(bytes: number, held = 0): boolean {
    const others = this.used - held;
    return others <= 0 || this.used + bytes <= this.limit;
  }

  release(bytes: number): void {
    this.used -= bytes;
  }

  get bytesInUse(): number {
    return this.used;
  }
}

/**
 * Media types read as JSON / NDJSON. A missing type and `text/plain` are accepted because
 * forwarders and shell scripts often send them; `application/x-www-form-urlencoded` because it
 * is what `curl -d` sends by default. The body itself must still be JSON in every case.
 */
const ACCEPTED_MEDIA_TYPES = new Set([
  'application/json',
  'application/x-ndjson',
  'application/ndjson',
  'application/jsonl',
  'application/x-jsonlines',
  'text/plain',
  'application/x-www-form-urlencoded',
]);

type Decoder = (input: Buffer, options: zlib.ZlibOptions) => Promise<Buffer>;

const gunzip = promisify(zlib.gunzip) as Decoder;
const inflate = promisify(zlib.inflate) as Decoder;
const inflateRaw = promisify(zlib.inflateRaw) as Decoder;
const brotli = promisify(zlib.brotliDecompress) as (input: Buffer, options: zlib.BrotliOptions) => Promise<Buffer>;

export function checkMediaType(headers: IncomingHttpHeaders): void {
  const header = headers['content-type'];
  if (header === undefined || header.trim() === '') return;
  const [essence, ...parameters] = header.split(';').map((part) => part.trim().toLowerCase());
  if (!essence || !ACCEPTED_MEDIA_TYPES.has(essence)) {
    throw new AppError(
      'unsupported_media_type',
      `Content-Type ${JSON.stringify(header)} is not accepted; send application/json or application/x-ndjson`,
      { extensions: { accepted: [...ACCEPTED_MEDIA_TYPES] } },
    );
  }
  const charset = parameters.find((parameter) => parameter.startsWith('charset='));
  if (charset && !/^charset="?utf-?8"?$/.test(charset)) {
    throw new AppError('unsupported_media_type', `${charset} is not accepted; JSON must be sent as UTF-8`);
  }
}

export interface ReadBody {
  /** The body, decompressed. */
  body: Buffer;
  /** Bytes as sent on the wire. */
  wireBytes: number;
}

/** Reads the body; every byte held is taken from `charge` (the caller releases it later). */
export async function readBody(
  stream: Readable,
  headers: IncomingHttpHeaders,
  limits: BodyLimits,
  charge: (bytes: number) => void,
): Promise<ReadBody> {
  const encoding = contentEncoding(headers);
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBodyBytes) {
    throw bodyTooLarge(`the body is ${declared} bytes`, limits);
  }
  const raw = await collect(stream, limits, charge);
  if (encoding === 'identity') return { body: raw, wireBytes: raw.length };
  const body = await decompress(raw, encoding, limits);
  charge(body.length);
  return { body, wireBytes: raw.length };
}

type Encoding = 'identity' | 'gzip' | 'deflate' | 'br';

function contentEncoding(headers: IncomingHttpHeaders): Encoding {
  const header = (headers['content-encoding'] ?? '').trim().toLowerCase();
  if (header === '' || header === 'identity') return 'identity';
  if (header === 'gzip' || header === 'x-gzip') return 'gzip';
  if (header === 'deflate') return 'deflate';
  if (header === 'br') return 'br';
  throw new AppError(
    'unsupported_content_encoding',
    `Content-Encoding ${JSON.stringify(header)} is not supported; use gzip, deflate, br or none`,
    { extensions: { accepted: ['gzip', 'deflate', 'br', 'identity'] } },
  );
}

/**
 * Reads the body into memory, charging each chunk. When the body must be refused part-way
 * (too large, or the collector has no memory left for it), reading goes on and the rest is
 * discarded: a sender still writing its body then reads the answer (413, 503 + Retry-After)
 * instead of having its connection reset under it. The request timeout bounds how long.
 */
function collect(stream: Readable, limits: BodyLimits, charge: (bytes: number) => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const refuse = (error: unknown) => {
      if (settled) return;
      settled = true;
      stream.removeListener('data', onData);
      chunks.length = 0;
      stream.resume();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onData = (buffer: Buffer) => {
      size += buffer.length;
      if (size > limits.maxBodyBytes) {
        refuse(bodyTooLarge(`the body exceeds ${limits.maxBodyBytes} bytes`, limits));
        return;
      }
      try {
        charge(buffer.length);
      } catch (error) {
        refuse(error);
        return;
      }
      chunks.push(buffer);
    };
    // The sender went away mid-body (reset, premature close): nothing to store, nobody to tell.
    const aborted = (cause?: unknown) => {
      if (settled) return;
      settled = true;
      reject(new AppError('request_aborted', 'the request body ended before it was complete', { cause }));
    };
    stream.on('data', onData);
    stream.once('error', aborted);
    stream.once('close', () => aborted());
    stream.once('end', () => {
      if (settled) return;
      settled = true;
      // The chunks are garbage once joined, so the joined copy is not charged again.
      const [first] = chunks;
      resolve(chunks.length === 1 && first !== undefined ? first : Buffer.concat(chunks, size));
    });
  });
}

async function decompress(raw: Buffer, encoding: Exclude<Encoding, 'identity'>, limits: BodyLimits): Promise<Buffer> {
  // One more byte than the limit lets "exactly at the limit" pass and "over it" fail.
  const maxOutputLength = limits.maxBodyBytes + 1;
  let output: Buffer;
  try {
    if (encoding === 'gzip') output = await gunzip(raw, { maxOutputLength });
    else if (encoding === 'br') output = await brotli(raw, { maxOutputLength });
    // "deflate" is meant to be zlib-wrapped (RFC 9110), but some clients send raw deflate.
    else output = await (hasZlibHeader(raw) ? inflate : inflateRaw)(raw, { maxOutputLength });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw bodyTooLarge(`the ${encoding} body inflates past ${limits.maxBodyBytes} bytes`, limits);
    }
    throw new AppError(
      'invalid_compressed_body',
      `the body is not valid ${encoding} data: ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (output.length > limits.maxBodyBytes) {
    throw bodyTooLarge(`the ${encoding} body inflates past ${limits.maxBodyBytes} bytes`, limits);
  }
  return output;
}

function hasZlibHeader(raw: Buffer): boolean {
  if (raw.length < 2) return false;
  const cmf = raw.readUInt8(0);
  const flg = raw.readUInt8(1);
  return (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0;
}

function bodyTooLarge(what: string, limits: BodyLimits): AppError {
  return new AppError(
    'body_too_large',
    `${what}; the largest accepted body is ${limits.maxBodyBytes} bytes, before and after decompression`,
    {
      extensions: { limit_bytes: limits.maxBodyBytes },
    },
  );
}
