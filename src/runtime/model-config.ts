import { z } from 'zod';

/**
 * Schemas for the files of a transformers.js-style model folder. Unknown keys pass through
 * (hub configs carry many we do not need); the keys we rely on are validated so that a bad
 * folder fails with a clear message at install time, not with NaNs at run time.
 */

const LanternSection = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'model id: lowercase letters, digits, . _ -'),
  version: z.string().regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, 'version must be semver'),
  task: z.enum(['text-classification', 'image-classification']),
  title: z.string().optional(),
  output: z.enum(['logits', 'probabilities']).default('logits'),
  batch: z.enum(['dynamic', 'fixed']).default('dynamic'),
  input_names: z.array(z.string()).optional(),
  output_name: z.string().optional(),
  display_names: z.record(z.string(), z.string()).optional(),
  /** Language tag → (label → display name), e.g. { "hi": { "Bag": "थैला" } }. Labels never change. */
  localized_display_names: z.record(z.string(), z.record(z.string(), z.string())).optional(),
  /**
   * A top score below this marks the answer "unsure". The default 0.5 means: the top label is
   * less likely than all the others together (a two-label model is then never unsure; set it
   * higher, e.g. 0.8, for one that should say so).
   */
  unsure_below: z.number().min(0).max(1).default(0.5),
});

export const ModelConfigSchema = z.looseObject({
  id2label: z.record(z.string().regex(/^\d+$/), z.string()).refine((m) => Object.keys(m).length >= 2, 'id2label needs at least two labels'),
  lantern: LanternSection,
});
export type ModelConfig = z.infer<typeof ModelConfigSchema>;
export type LanternModelInfo = ModelConfig['lantern'];

const Size = z.union([
  z.object({ height: z.number().int().positive(), width: z.number().int().positive() }),
  z.object({ shortest_edge: z.number().int().positive() }),
  z.number().int().positive().transform((n) => ({ shortest_edge: n })),
]);
const CropSize = z.union([
  z.object({ height: z.number().int().positive(), width: z.number().int().positive() }),
  z.number().int().positive().transform((n) => ({ height: n, width: n })),
]);
const PerChannel = z.union([z.number(), z.array(z.number()).min(1).max(3)]);

export const PreprocessorConfigSchema = z.looseObject({
  do_resize: z.boolean().default(true),
  size: Size,
  /** Lantern extension: 'fit_height_pad_right' keeps aspect at a fixed height (OCR line models). */
  resize_mode: z.enum(['stretch', 'shortest_edge', 'fit_height_pad_right']).optional(),
  resample: z.number().int().default(2),
  /** Lantern extension: false = OpenCV-style bilinear (no prefilter); default PIL-style. */
  antialias: z.boolean().default(true),
  do_center_crop: z.boolean().default(false),
  crop_size: CropSize.optional(),
  do_rescale: z.boolean().default(true),
  rescale_factor: z.number().positive().default(1 / 255),
  do_normalize: z.boolean().default(true),
  image_mean: PerChannel.default([0.5, 0.5, 0.5]),
  image_std: PerChannel.default([0.5, 0.5, 0.5]),
  do_convert_rgb: z.boolean().default(true),
  /** Lantern extension: one input channel (e.g. Fashion-MNIST). */
  do_convert_grayscale: z.boolean().default(false),
  do_pad: z.boolean().default(false),
  pad_size: z.object({ height: z.number().int().positive(), width: z.number().int().positive() }).optional(),
});
export type PreprocessorConfig = z.infer<typeof PreprocessorConfigSchema>;

export const TokenizerConfigSchema = z.looseObject({
  model_max_length: z.number().int().positive().optional(),
  max_length: z.number().int().positive().optional(),
  pad_token: z.string().optional(),
  unk_token: z.string().optional(),
});
export type TokenizerConfig = z.infer<typeof TokenizerConfigSchema>;

/** `tokenizer.json` is validated by the tokenizer library itself; we only check its shape. */
export const TokenizerJsonSchema = z.looseObject({ model: z.looseObject({ type: z.string().optional() }) });

/** Formats a zod error as one human sentence naming the file. */
export function describeSchemaError(file: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue && issue.path.length ? ` at "${issue.path.join('.')}"` : '';
  return `${file} is not valid${where}: ${issue?.message ?? 'unknown problem'}.`;
}
