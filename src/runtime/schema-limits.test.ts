import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.ts';
import { ModelConfigSchema } from './model-config.ts';
import { MAX_CATALOG_RELEASES, MAX_CHUNK_SIZE, MAX_CHUNKS_PER_FILE, MAX_FILES, MAX_GOLDEN_TEXT_LENGTH, MAX_LABEL_LENGTH, MAX_LABELS } from './schema-limits.ts';
import { ReleaseCatalogSchema, CATALOG_FORMAT } from './store/catalog.ts';
import { parseManifest } from './store/manifest.ts';
import { keyAndTrust, makeRelease } from './store/test-helpers.ts';

/** Each limit is checked by editing a valid manifest just past it. */
describe('schema limits', () => {
  const encode = (json: unknown) => new TextEncoder().encode(JSON.stringify(json));

  it('refuses a manifest past each limit on files, chunks, labels and strings, naming the field', async () => {
    const { key } = await keyAndTrust();
    const valid = JSON.parse(new TextDecoder().decode((await makeRelease(key, { version: '1.0.0', sequence: 1 })).bytes)) as Record<string, unknown> & { files: Record<string, unknown>[] };
    expect(() => parseManifest(encode(valid))).not.toThrow();
    const file = valid.files[0]!;
    const cases: [string, Record<string, unknown>][] = [
      ['labels', { labels: Array.from({ length: MAX_LABELS + 1 }, (_, i) => `l${i}`) }],
      ['labels.0', { labels: ['x'.repeat(MAX_LABEL_LENGTH + 1), 'b'] }],
      ['files', { files: Array.from({ length: MAX_FILES + 1 }, (_, i) => ({ ...file, path: `f${i}` })) }],
      ['files.0.chunks', { files: [{ ...file, size: MAX_CHUNKS_PER_FILE + 1, chunkSize: 1, chunks: new Array(MAX_CHUNKS_PER_FILE + 1).fill((file.chunks as string[])[0]) }, ...valid.files.slice(1)] }],
      ['files.0.chunkSize', { files: [{ ...file, chunkSize: MAX_CHUNK_SIZE + 1, chunks: [(file.chunks as string[])[0]] }, ...valid.files.slice(1)] }],
      ['title', { title: 'x'.repeat(201) }],
      ['id', { id: 'x'.repeat(129) }],
      ['validation.items.0.input.text', { validation: { threshold: 0.5, items: [{ input: { kind: 'text', text: 'x'.repeat(MAX_GOLDEN_TEXT_LENGTH + 1) }, label: 'a' }] } }],
    ];
    for (const [field, edit] of cases) {
      const error = (() => { try { parseManifest(encode({ ...valid, ...edit })); } catch (e) { return e; } })();
      expect(error, field).toBeInstanceOf(ValidationError);
      expect((error as Error).message, field).toContain(`at "${field}"`);
    }
  });

  it('limits the labels of a model config and the releases of a catalog', () => {
    const id2label = Object.fromEntries(Array.from({ length: MAX_LABELS + 1 }, (_, i) => [String(i), `l${i}`]));
    expect(ModelConfigSchema.safeParse({ id2label, lantern: { id: 'm', version: '1.0.0', task: 'text-classification' } }).success).toBe(false);
    const release = { id: 'm', version: '1.0.0', sequence: 1, manifest: 'm.json', signature: 's.json', size: 1 };
    const catalog = { format: CATALOG_FORMAT, version: 1, createdAt: '2026-01-01T00:00:00Z', expiresAt: '2027-01-01T00:00:00Z' };
    expect(ReleaseCatalogSchema.safeParse({ ...catalog, releases: new Array(MAX_CATALOG_RELEASES + 1).fill(release) }).success).toBe(false);
    expect(ReleaseCatalogSchema.safeParse({ ...catalog, releases: [release] }).success).toBe(true);
  });
});
