import { formatId, newId } from '../../core/ids.js';
import { Message } from '../../core/message.js';
import type { Sink } from '../../core/route.js';
import { rejectedError } from '../../core/errors.js';
import { ItemSplitter } from './body.js';
import { BodyNotText, StreamText } from './text-body.js';

/**
 * contract §4.4: writes each item of a streamed (SSE/NDJSON) answer to `to` as a message correlated
 * with the request `m`, then an end marker with an empty payload.
 */
export async function streamItems(to: Sink, m: Message, body: AsyncIterable<Buffer>, format: 'ndjson' | 'sse', type: string): Promise<void> {
  const correlation = m.metadata?.correlation_id ?? formatId(m.id);
  const streamId = formatId(newId());
  let index = 0;
  let pending: Message[] = [];
  const meta = (end: boolean): Record<string, string> => ({
    correlation_id: correlation,
    http_stream_id: streamId,
    http_stream_index: String(index),
    http_stream_format: format,
    http_stream_end: String(end),
  });
  const flush = async (): Promise<void> => {
    if (pending.length) await to.write(pending);
    pending = [];
  };
  try {
    // The answer's items are read in its charset; one that is not in it is the message's rejection, not a failure to retry (its items so far would come again).
    const splitter = new ItemSplitter(
      format,
      async (item) => {
        const out = new Message(item, meta(false));
        index++;
        pending.push(out);
        if (pending.length >= 100) await flush();
      },
      new StreamText(type),
    );
    for await (const chunk of body) await splitter.write(chunk);
    await splitter.end();
  } catch (e) {
    if (e instanceof BodyNotText) throw rejectedError(`message ${m.idHex}: its streamed answer: ${e.message}`, e, m.idHex);
    throw e;
  }
  pending.push(new Message('', meta(true)));
  await flush();
}
