/**
 * Every secret the run knows (URL passwords, password fields, checkpoint stores, basic auth, header
 * values). All output goes through `redact`, so a driver error that echoes a secret is still clean.
 */
const secrets = new Set<string>();

const MASK = '***';

export function addSecret(value: string | undefined): void {
  if (value === undefined) return;
  // Very short strings would mask ordinary words; they are masked structurally in URLs instead.
  if (value.length < 3) return;
  secrets.add(value);
  try {
    const enc = encodeURIComponent(value);
    if (enc !== value) secrets.add(enc);
  } catch {
    /* lone surrogates cannot be encoded; the raw form is registered */
  }
}

export function redact(text: string): string {
  if (secrets.size === 0) return text;
  let out = text;
  // Longest first, so a secret containing another is masked whole.
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) if (out.includes(s)) out = out.split(s).join(MASK);
  return out;
}

/** For tests: forget what earlier runs in this process registered. */
export function clearSecrets(): void {
  secrets.clear();
}

export const MASKED = MASK;
