import { z } from 'zod/mini';
import type { Backend } from '../runtime/index.ts';

/**
 * The build's list of everything a device stores to work offline, with what each costs to
 * download (bytes over the wire from a host that serves the build's brotli copies). Written by
 * scripts/offline-files.ts at build time (so no number here is maintained by hand), read by the
 * app; this module is that format, and nothing else, so the build can import it without the UI.
 */

/** Where the build writes the list (next to index.html; the service worker precaches it too). */
export const OFFLINE_FILES = 'offline-files.json';

const size = z.int().check(z.nonnegative());
/**
 * `url` is relative to the app's base URL, as the build wrote it. `storedSize`, given for ORT's
 * wasm: its bytes once decoded, which is what its download counts as it arrives (the worker
 * reports it; `size` is what it costs over the wire).
 */
const SizedFileSchema = z.object({ url: z.string(), size, storedSize: z.optional(size) });
const OfflineFilesSchema = z.object({
  /** The app shell: the service worker's precache list. */
  precache: z.array(SizedFileSchema),
  /** ORT's glue and wasm per build; a device keeps only the build it uses (workers/ort-offline.ts). */
  ort: z.object({ wasm: z.array(SizedFileSchema), webgpu: z.array(SizedFileSchema) }) satisfies z.ZodMiniType<Record<Backend, unknown>>,
  /** The built-in releases the app installs into IndexedDB on first start (signed sizes). */
  models: z.array(z.object({ id: z.string(), size })),
});
export type SizedFile = z.infer<typeof SizedFileSchema>;
export type OfflineFiles = z.infer<typeof OfflineFilesSchema>;

/** The build's list, checked: a broken or foreign file means "cannot tell", never a wrong number. */
export function parseOfflineFiles(json: unknown): OfflineFiles | undefined {
  const parsed = OfflineFilesSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
