import { describe, expect, it } from 'vitest';
import { readReason, REASONS, type ReasonKind } from './reason-catalog.ts';
import { fillReason } from './reasons.ts';

describe('store reasons', () => {
  it('gives every sentence it makes back as its template and figures, whatever the figures hold', () => {
    const figures = { failed: 3, total: 5, accuracy: '92.5%', threshold: '95.0%', runs: 50, agreement: '–', latency: '×1.25', errors: 0, file: 'tokenizer.json', described: 'acme/photos (1.0)', id: 'spam-filter', made: 'image-classification', task: 'text-classification' };
    for (const kind of Object.keys(REASONS) as ReasonKind[]) {
      const text = fillReason(REASONS[kind], figures);
      expect(text).not.toMatch(/\{\w+\}/);
      const read = readReason(text);
      expect(read?.kind, kind).toBe(kind);
      for (const [name, value] of Object.entries(read!.figures)) expect(value, `${kind} ${name}`).toBe(String(figures[name as keyof typeof figures]));
    }
  });

  it('reads no other text: a publisher\'s own words stay theirs', () => {
    expect(readReason('flags invoices as spam')).toBeUndefined();
    expect(readReason(`${REASONS.unloadable}, and more`)).toBeUndefined();
    expect(readReason('rolled back automatically: 3 of its last 5 requests failed')).toEqual({ kind: 'failing', figures: { failed: '3', total: '5' } });
  });
});
