// A DNS server for tests, on a free UDP loopback port: it answers TXT questions for the names a
// test publishes records on, and "no such name" for everything else. Point node:dns at it with
// `dns.setServers([server.address])` (the resolver the server under test uses for TXT lookups)
// and put the previous servers back afterwards.
import dgram from 'node:dgram';

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, as dns.setServers takes it. */
  address: string;
  /** name (lower-cased, no trailing dot) → its TXT records' texts. */
  txt: Map<string, string[]>;
  close(): Promise<void>;
}

const TXT = 16;

function questionEnd(message: Buffer): { name: string; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (at < message.length && message[at] !== 0) {
    const length = message[at]!;
    labels.push(message.subarray(at + 1, at + 1 + length).toString('latin1'));
    at += 1 + length;
  }
  // The name's final zero, then its type and class.
  return { name: labels.join('.').toLowerCase(), end: at + 5 };
}

function answer(query: Buffer, records: Map<string, string[]>): Buffer {
  const { name, end } = questionEnd(query);
  const type = query.readUInt16BE(end - 4);
  const texts = type === TXT ? (records.get(name) ?? []) : [];
  const known = records.has(name);
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  // A response, recursion desired as asked and available; rcode 3 (no such name) when unknown.
  header.writeUInt16BE(0x8000 | (query.readUInt16BE(2) & 0x0100) | 0x0080 | (known ? 0 : 3), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(texts.length, 6);
  const answers = texts.map((text) => {
    const data = Buffer.from(text, 'utf8');
    const record = Buffer.alloc(12);
    // The name as a pointer to the question's.
    record.writeUInt16BE(0xc00c, 0);
    record.writeUInt16BE(TXT, 2);
    record.writeUInt16BE(1, 4);
    record.writeUInt32BE(60, 6);
    record.writeUInt16BE(data.length + 1, 10);
    return Buffer.concat([record, Buffer.from([data.length]), data]);
  });
  return Buffer.concat([header, query.subarray(12, end), ...answers]);
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const socket = dgram.createSocket('udp4');
  const txt = new Map<string, string[]>();
  socket.on('message', (query, from) => {
    if (query.length < 17) return;
    socket.send(answer(query, txt), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    txt,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
