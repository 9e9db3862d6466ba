import { crashSuite } from './crash-suite.js';

// SIGKILLs at random moments of copies and tails from PostgreSQL into every kind (crash-suite.ts).
crashSuite(['postgres']);
