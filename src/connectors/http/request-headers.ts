import type { Message } from '../../core/message.js';

/**
 * The headers of the HTTP sink's request for one message. `message-id` and `Idempotency-Key` are
 * the message id, stable across restarts (a change's commit position, a row's key and version, a
 * file's line), so a peer can drop a message bridge sends again after a kill or a timeout.
 * custom_headers come after and win; basic auth last.
 */
export function requestHeaders(m: Message, custom: Record<string, unknown> | undefined, auth: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': m.isJson ? 'application/json' : (m.metadata?.['http.content_type'] ?? 'application/octet-stream'),
    'message-id': m.idHex,
    'idempotency-key': m.idHex,
  };
  for (const [k, v] of Object.entries(custom ?? {})) headers[k.toLowerCase()] = String(v);
  if (auth) headers.authorization = auth;
  return headers;
}
