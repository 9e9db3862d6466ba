import { InvalidArgumentError } from 'commander';

/** A commander parser for a positive integer flag. */
export function positiveInt(name: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
    return Number(v);
  };
}
