import type { FieldSpec } from './fields.js';

/** Contract §2.3: the TLS object shared by the database and HTTP connectors. */
export const TLS_FIELDS: readonly FieldSpec[] = [
  { name: 'required', type: 'boolean', default: false, roles: ['consumer', 'publisher'], description: 'Enable TLS/SSL.' },
  { name: 'ca_file', type: 'string', roles: ['consumer', 'publisher'], description: 'Path to the CA certificate file (PEM).' },
  { name: 'cert_file', type: 'string', roles: ['consumer', 'publisher'], description: 'Path to the client certificate file (PEM).' },
  { name: 'key_file', type: 'string', roles: ['consumer', 'publisher'], description: 'Path to the client private key file (PEM).' },
  { name: 'cert_password', type: 'string', secret: true, roles: ['consumer', 'publisher'], description: 'Password of the private key, if encrypted.' },
  {
    name: 'accept_invalid_certs',
    type: 'boolean',
    default: false,
    roles: ['consumer', 'publisher'],
    description: 'Disable server certificate verification (insecure; a warning is printed).',
  },
];

export interface TlsConfig {
  required?: boolean;
  ca_file?: string;
  cert_file?: string;
  key_file?: string;
  cert_password?: string;
  accept_invalid_certs?: boolean;
}
