import { InvalidArgumentError } from 'commander';

/** A commander parser for a positive integer flag. */
/** An integer of 0 or more (0 turns the setting off). */
export function nonNegativeInt(name: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v)) throw new InvalidArgumentError(`${name} must be an integer of 0 or more`);
    return Number(v);
  };
}

export function positiveInt(name: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
    return Number(v);
  };
}
