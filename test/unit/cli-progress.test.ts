import { describe, expect, it } from 'vitest';
import { progressBar, progressFraction } from '../../src/cli/progress.js';

describe('progressFraction', () => {
  it('reads fractions and percentages', () => {
    expect(progressFraction(0)).toBe(0);
    expect(progressFraction(0.25)).toBe(0.25);
    expect(progressFraction(1)).toBe(1);
    expect(progressFraction(40)).toBe(0.4);
    expect(progressFraction({ progress: 0.7 })).toBe(0.7);
    expect(progressFraction({ progress: 70 })).toBe(0.7);
    expect(progressFraction({ percent: 12.5 })).toBe(0.125);
  });

  it('reads a count against a total, whatever the count is called', () => {
    expect(progressFraction({ done: 3, total: 12 })).toBe(0.25);
    expect(progressFraction({ counted: 5, total: 10 })).toBe(0.5);
    expect(progressFraction({ processed: 30, total: 20 })).toBe(1);
  });

  it('states nothing for values without progress', () => {
    expect(progressFraction(undefined)).toBeUndefined();
    expect(progressFraction(null)).toBeUndefined();
    expect(progressFraction('50%')).toBeUndefined();
    expect(progressFraction(250)).toBeUndefined();
    expect(progressFraction(-1)).toBeUndefined();
    expect(progressFraction([0.5])).toBeUndefined();
    expect(progressFraction({ counted: 3, done: false })).toBeUndefined();
    expect(progressFraction({ done: 3, total: 0 })).toBeUndefined();
  });
});

describe('progressBar', () => {
  it('fills cells in proportion and prints the percentage', () => {
    expect(progressBar(0, 10)).toBe('[░░░░░░░░░░]   0%');
    expect(progressBar(0.5, 10)).toBe('[█████░░░░░]  50%');
    expect(progressBar(1, 10)).toBe('[██████████] 100%');
    expect(progressBar(2, 4)).toBe('[████] 100%');
  });
});
