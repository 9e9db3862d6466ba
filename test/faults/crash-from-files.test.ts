import { crashSuite } from './crash-suite.js';

// SIGKILLs at random moments of copies and tails from SQLite and NDJSON into every kind (crash-suite.ts).
crashSuite(['sqlite', 'ndjson']);
