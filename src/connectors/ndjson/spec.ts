import type { ConnectorSpec } from '../../config/fields.js';

/** NDJSON endpoints: `-` (stdin/stdout) and `file://path`. One JSON document per line. */
export const NDJSON_SPEC: ConnectorSpec = {
  name: 'ndjson',
  description:
    'Consumer: reads one message per line of a file or of stdin (`-`); blank lines, CRLF line ends and a UTF-8 byte order mark at the start are taken as the text they frame, not as content. Publisher: writes one payload per line to a file or to stdout (`-`). A fresh `copy` rewrites a file sink; `tail` and a resuming `copy` (cursor_id, queue) append. Before appending to a regular file, a run moves an unfinished last line (the part of a batch an earlier run was killed while writing; that batch was never confirmed, so it is delivered again) to `<file>.unfinished-<ms>` and warns; a last line that is a whole JSON object or array is kept and given its newline.',
  schemes: { file: 'ndjson', '-': 'ndjson' },
  pathSchemes: ['file'],
  fields: [
    {
      name: 'format',
      type: 'enum',
      values: ['payload', 'envelope'],
      default: 'payload',
      roles: ['consumer', 'publisher'],
      description:
        'payload: each line is a message payload. envelope: each line is {"id":"<32 hex digits>","metadata":{...},"payload":...}, so ids and metadata (source positions, lookup results, dead-letter errors) are kept.',
    },
  ],
};
