/**
 * Upper bounds on everything a manifest, catalog or model config may declare (SECURITY.md,
 * "Limits"). They keep a hostile or broken file from making the device allocate, loop or store
 * without end before a signature or hash check could stop it; each sits well above any real
 * classifier (ImageNet-21k has 21,843 labels; a 2 GB model at the default chunk size has
 * 8,192 chunks). The byte limits on fetched documents are in store/net.ts.
 */
export const MAX_LABELS = 32_768;
export const MAX_LABEL_LENGTH = 256;
export const MAX_FILES = 64;
export const MAX_CHUNKS_PER_FILE = 16_384;
/** A chunk is held in memory whole while it is verified. */
export const MAX_CHUNK_SIZE = 16 * 1024 * 1024;
export const MAX_FILE_SIZE = 4 * 1024 * 1024 * 1024;
export const MAX_ID_LENGTH = 128;
export const MAX_PATH_LENGTH = 200;
export const MAX_TITLE_LENGTH = 200;
/** A publisher's reason for withdrawing a release: a sentence the Models screen shows. */
export const MAX_WITHDRAWAL_REASON = 300;
export const MAX_GOLDEN_ITEMS = 500;
export const MAX_GOLDEN_TEXT_LENGTH = 10_000;
export const MAX_SAMPLES = 32;
export const MAX_CATALOG_RELEASES = 1_000;
/**
 * The largest side, in pixels, a model's preprocessor may ask images to be resized, cropped or
 * padded to (classifiers take 224–600, the largest ~1,024). Unbounded, a config asking for
 * 100,000 × 100,000 failed every photo as if the photo were at fault, and so was never rolled back.
 */
export const MAX_IMAGE_SIDE = 4_096;
/** Withdrawals a device keeps per model it has (the highest sequences): see ModelStore.withdraw. */
export const MAX_WITHDRAWALS_PER_MODEL = 64;
/** Withdrawals a device keeps per catalog URL of models it never had (the newest catalogs'): one full catalog's worth. */
export const MAX_UNHELD_WITHDRAWALS_PER_CATALOG = MAX_CATALOG_RELEASES;
/** Model ids a device remembers a catalog URL listing (CatalogStamp.ids): one full catalog's worth. */
export const MAX_CATALOG_IDS = MAX_CATALOG_RELEASES;
