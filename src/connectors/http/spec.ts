import type { ConnectorSpec, FieldSpec } from '../../config/fields.js';
import { TLS_FIELDS } from '../../config/tls-spec.js';

const BOTH = ['consumer', 'publisher'] as const;
const CONSUMER = ['consumer'] as const;
const PUBLISHER = ['publisher'] as const;

/** Contract §2.2: every field of the HTTP connector. */
export const HTTP_FIELDS: readonly FieldSpec[] = [
  { name: 'method', type: 'string', roles: BOTH, defaultText: 'publisher: POST', description: 'Publisher: the request method. Consumer: accept only this method (405 otherwise).' },
  { name: 'path', type: 'string', roles: CONSUMER, description: 'Accept only requests whose path matches exactly (404 otherwise).' },
  { name: 'basic_auth', type: 'array', roles: BOTH, secret: true, description: 'Credentials as a JSON array ["user","password"]. Never printed.' },
  { name: 'custom_headers', type: 'object', roles: BOTH, secret: true, description: 'Headers added to outgoing requests/responses, as a JSON object. Values never printed.' },
  { name: 'tls', type: 'object', roles: BOTH, fields: TLS_FIELDS, description: 'TLS as a JSON object. Consumer: cert_file/key_file serve HTTPS; ca_file verifies client certificates.' },
  { name: 'request_timeout_ms', type: 'integer', default: 30000, min: 1, roles: BOTH, description: 'Consumer: how long a request waits for its reply (504 after). Publisher: timeout of each request.' },
  { name: 'compression_enabled', type: 'boolean', default: false, roles: BOTH, description: 'Publisher: compress request bodies (gzip unless compression says otherwise). Consumer: compress responses per Accept-Encoding.' },
  { name: 'compression', type: 'enum', values: ['none', 'gzip', 'lz4', 'zstd'], defaultText: 'none', roles: PUBLISHER, description: 'Codec of request bodies; overrides compression_enabled. lz4 uses the LZ4 frame format.' },
  { name: 'compression_threshold_bytes', type: 'integer', default: 1024, min: 0, roles: BOTH, description: 'Bodies smaller than this are sent uncompressed.' },
  { name: 'batch_concurrency', type: 'integer', default: 20, min: 1, roles: PUBLISHER, description: 'Requests in flight at once.' },
  { name: 'pool_idle_timeout_ms', type: 'integer', default: 90000, min: 1, roles: PUBLISHER, description: 'Idle connections close after this (ms).' },
  { name: 'tcp_keepalive_ms', type: 'integer', default: 60000, min: 1, roles: PUBLISHER, description: 'TCP keepalive of pooled connections (ms).' },
  { name: 'shared', type: 'boolean', default: true, roles: PUBLISHER, description: 'Share one HTTP client per target origin; false forces a dedicated one.' },
  { name: 'stream_response_to', type: 'string', roles: PUBLISHER, description: 'Endpoint URL that receives the items of SSE/NDJSON responses as correlated messages.' },
  { name: 'retry_after_max_ms', type: 'integer', default: 60000, min: 0, roles: PUBLISHER, description: 'Longest Retry-After (of a 429 or 503) honoured before re-sending (ms); a longer one waits this long. Such waits do not use up --max-retries.' },
  { name: 'concurrency_limit', type: 'integer', default: 100, min: 1, roles: CONSUMER, description: 'Requests handled at once.' },
  {
    name: 'fire_and_forget',
    type: 'boolean',
    default: false,
    roles: CONSUMER,
    description: 'Answer 202 at once without waiting for the sink. Without spool_dir, a crash (kill -9, power loss) loses what was answered 202 and not yet written; a clean stop writes it all.',
  },
  {
    name: 'spool_dir',
    type: 'string',
    roles: CONSUMER,
    description: 'With fire_and_forget: each message is appended to a local spool (fsynced, in groups) before its 202, and replayed at start, so a crash loses nothing answered 202.',
  },
  { name: 'spool_max_bytes', type: 'integer', default: 1024 * 1024 * 1024, min: 1, roles: CONSUMER, description: 'Unconfirmed spool size at which new requests get 503 with Retry-After.' },
  { name: 'inline_response_fast_path', type: 'boolean', default: true, roles: CONSUMER, description: 'Let request-reply routes answer inline, bypassing the batching pipeline.' },
  { name: 'internal_buffer_size', type: 'integer', default: 100, min: 1, roles: CONSUMER, description: 'Messages queued for the sink; 503 with Retry-After when full.' },
  { name: 'message_id_header', type: 'string', default: 'message-id', roles: CONSUMER, description: 'Request header holding the message id (UUID, hex or decimal).' },
  { name: 'receive_streamable', type: 'boolean', default: false, roles: CONSUMER, description: 'Read bodies as streams: one message per NDJSON line, SSE event or chunk (a body declared JSON is one document: one message).' },
  { name: 'server_protocol', type: 'enum', values: ['auto', 'http1_only', 'http2_only'], default: 'auto', roles: CONSUMER, description: 'HTTP versions accepted; http2_only on cleartext means h2c prior knowledge.' },
  { name: 'workers', type: 'integer', default: 0, min: 0, roles: CONSUMER, description: '0: one process; N: N worker processes sharing the port.' },
  { name: 'headers_timeout_ms', type: 'integer', default: 10000, min: 1, roles: CONSUMER, description: 'A connection must send a request\'s headers (HTTP/2: open a stream) within this; silent ones are closed (HTTP/1.1: 408).' },
  { name: 'keep_alive_timeout_ms', type: 'integer', default: 75000, min: 1, roles: CONSUMER, description: 'Idle connections (no request in flight) are closed after this. Keep it above the keep-alive timeout of a proxy in front (nginx: 60 s).' },
  { name: 'idempotency_window_ms', type: 'integer', default: 600000, min: 1, roles: CONSUMER, description: 'A request repeating the Idempotency-Key of one written this long ago or less is answered with its outcome, not written again.' },
  { name: 'max_body_bytes', type: 'integer', default: 16 * 1024 * 1024, min: 1, roles: CONSUMER, description: 'Largest accepted request body (413 above).' },
  { name: 'body_buffer_bytes', type: 'integer', default: 64 * 1024 * 1024, min: 1, roles: CONSUMER, description: 'Bytes of request bodies still arriving held at once, all requests together (at least max_body_bytes); a body that would pass it is answered 503 with Retry-After.' },
];

export const HTTP_SPEC: ConnectorSpec = {
  name: 'http',
  description: 'Consumer: an HTTP listener whose requests become messages. Publisher: an HTTP client sending each message.',
  schemes: { http: 'http', https: 'https' },
  fields: HTTP_FIELDS,
};
