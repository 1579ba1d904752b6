import { createInterface, type Interface } from 'node:readline';
import { PassThrough } from 'node:stream';
import {
  INVALID_PARAMS,
  INVALID_REQUEST,
  isJSONRPCRequest,
  PARSE_ERROR,
  parseJSONRPCMessage,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { idOf, initializeParamsProblem, sentArguments } from './inbound.js';

/** JSON-RPC batches belong to 2025-03-26 only: 2025-06-18 removed them, the 2026 era has none. */
const BATCH_VERSIONS = ['2025-03-26'];

interface Refusal {
  id: RequestId | null;
  code: number;
  message: string;
}

const NOT_A_MESSAGE =
  'Invalid Request: not a JSON-RPC 2.0 message (a request or a notification has "jsonrpc": "2.0" and a method; a response, an id and a result or an error)';

/** Why one parsed message cannot go to the SDK, or undefined. */
function refusalOf(value: unknown): Refusal | undefined {
  try {
    parseJSONRPCMessage(value);
  } catch {
    return { id: idOf(value), code: INVALID_REQUEST, message: NOT_A_MESSAGE };
  }
  const problem = initializeParamsProblem(value);
  return problem ? { id: idOf(value), code: INVALID_PARAMS, message: problem } : undefined;
}

function errorResponse({ id, code, message }: Refusal): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage;
}

/** A batch whose requests are still being answered: its answers so far, the ids it waits for. */
interface Batch {
  answers: JSONRPCMessage[];
  waiting: Set<RequestId>;
}

/**
 * The bridge's stdio transport: the SDK's own, behind a gate that reads stdin first.
 * The SDK skips a line that is not JSON without a word and reports a batch or a
 * non-message only to `onerror`, so the client waits for an answer that never comes;
 * JSON-RPC wants one. The gate answers those lines itself (-32700, -32600, and
 * -32602 for `initialize` params the SDK would answer with -32603 and a raw dump),
 * serves a batch as one batch response where the negotiated version has batches,
 * and hands every other line to the SDK as it came.
 */
export class GatedStdioTransport extends StdioServerTransport {
  private reader: Interface | undefined;
  private readonly batches: Batch[] = [];
  private readonly sent = new Map<RequestId, unknown>();
  private initializeId: RequestId | undefined;
  private protocolVersion: string | undefined;

  /** `lines`: what the SDK reads, the lines that passed the gate. */
  constructor(private readonly lines = new PassThrough()) {
    super(lines, process.stdout);
  }

  /** Each `tools/call`'s arguments as its line held them, by id, until it is answered (see `sentArguments`). */
  get sentArguments(): ReadonlyMap<RequestId, unknown> {
    return this.sent;
  }

  override async start(): Promise<void> {
    await super.start();
    this.reader = createInterface({ input: process.stdin, crlfDelay: Infinity });
    this.reader.on('line', (line) => this.screen(line));
    this.reader.on('close', () => this.lines.end());
  }

  override async close(): Promise<void> {
    this.reader?.close();
    await super.close();
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    const id = 'result' in message || 'error' in message ? message.id : undefined;
    if (id === undefined) return super.send(message);
    this.sent.delete(id);
    if (id === this.initializeId && 'result' in message) this.protocolVersion = String(message.result.protocolVersion);
    const batch = this.batches.find((b) => b.waiting.has(id));
    if (!batch) return super.send(message);
    batch.answers.push(message);
    batch.waiting.delete(id);
    if (batch.waiting.size > 0) return;
    this.batches.splice(this.batches.indexOf(batch), 1);
    return this.write(batch.answers);
  }

  private screen(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.refuse({ id: null, code: PARSE_ERROR, message: `Parse error: the line is not valid JSON (${(error as Error).message})` });
      return;
    }
    if (Array.isArray(value)) {
      this.batch(value);
      return;
    }
    const refusal = refusalOf(value);
    if (refusal) this.refuse(refusal);
    else this.forward(value, line);
  }

  private batch(members: unknown[]): void {
    if (members.length === 0) {
      this.refuse({ id: null, code: INVALID_REQUEST, message: 'Invalid Request: an empty batch' });
      return;
    }
    if (!BATCH_VERSIONS.includes(this.protocolVersion ?? '')) {
      const on = this.protocolVersion ? `at protocol version ${this.protocolVersion}` : 'on this connection';
      this.refuse({
        id: null,
        code: INVALID_REQUEST,
        message: `Invalid Request: JSON-RPC batches are not supported ${on} (only 2025-03-26, negotiated by initialize, has them); send one message per line`,
      });
      return;
    }
    const batch: Batch = { answers: [], waiting: new Set() };
    const accepted: unknown[] = [];
    for (const member of members) {
      const refusal = refusalOf(member);
      if (refusal) {
        batch.answers.push(errorResponse(refusal));
        continue;
      }
      if (isJSONRPCRequest(member)) batch.waiting.add(member.id);
      accepted.push(member);
    }
    // Notifications alone get no answer at all, as JSON-RPC says.
    if (batch.waiting.size > 0) this.batches.push(batch);
    else if (batch.answers.length > 0) void this.write(batch.answers);
    for (const member of accepted) this.forward(member, JSON.stringify(member));
  }

  private forward(message: unknown, line: string): void {
    for (const [id, args] of sentArguments([message])) this.sent.set(id, args);
    if (isJSONRPCRequest(message) && message.method === 'initialize') this.initializeId = message.id;
    this.lines.write(`${line}\n`);
  }

  private refuse(refusal: Refusal): void {
    void this.write(errorResponse(refusal));
  }

  /** One line on stdout: a message, or a batch response (an array serializes the same way). */
  private write(message: JSONRPCMessage | JSONRPCMessage[]): Promise<void> {
    return super.send(message as JSONRPCMessage).catch((error: Error) => this.onerror?.(error));
  }
}
