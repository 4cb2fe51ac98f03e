import { z } from 'zod/mini';
import type { LanternError } from './errors.ts';
import { ModelIdSchema } from './model-id.ts';
import { parseSchema } from './schema.ts';
import { tokenizerRegexProblem } from './regex-hazard.ts';
import { MAX_IMAGE_SIDE, MAX_LABEL_LENGTH, MAX_LABELS, MAX_TITLE_LENGTH } from './schema-limits.ts';

/**
 * Schemas for the files of a transformers.js-style model folder. Unknown keys pass through
 * (hub configs carry many we do not need); the keys we rely on are validated so that a bad
 * folder fails with a clear message at install time, not with NaNs at run time.
 */

/** Label → name; read with own-property semantics only (labels.ts `labelNamesOf`), as a label may be any string. */
const labelNames = z.record(z.string().check(z.maxLength(MAX_LABEL_LENGTH)), z.string());

export const SEMVER = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/;

/** See `unsure_below` below. */
export const DEFAULT_UNSURE_BELOW = 0.5;

const LanternSection = z.object({
  id: ModelIdSchema,
  version: z.string().check(z.regex(SEMVER, 'version must be semver')),
  task: z.enum(['text-classification', 'image-classification']),
  title: z.optional(z.string().check(z.maxLength(MAX_TITLE_LENGTH))),
  output: z._default(z.enum(['logits', 'probabilities']), 'logits'),
  batch: z._default(z.enum(['dynamic', 'fixed']), 'dynamic'),
  input_names: z.optional(z.array(z.string())),
  output_name: z.optional(z.string()),
  display_names: z.optional(labelNames),
  /** Language tag → (label → display name), e.g. { "hi": { "Bag": "थैला" } }. Labels never change. */
  localized_display_names: z.optional(z.record(z.string().check(z.maxLength(35)), labelNames)),
  /**
   * A top score below this marks the answer "unsure". The default 0.5 means: the top label is
   * less likely than all the others together (a two-label model is then never unsure; set it
   * higher, e.g. 0.8, for one that should say so).
   */
  unsure_below: z._default(z.number().check(z.gte(0), z.lte(1)), DEFAULT_UNSURE_BELOW),
});

/**
 * id2label as transformers.js reads it: output i is labelled `id2label[i]`. Its keys must be
 * exactly 0…n-1: with a gap (keys 0, 1, 3) transformers.js labels output 2 `undefined`, and every
 * list Lantern keeps in index order (a manifest's labels, golden items, metrics) would shift
 * against the outputs. Such a config is refused by name rather than guessed at.
 */
export const Id2LabelSchema = z.record(z.string().check(z.regex(/^\d+$/)), z.string().check(z.maxLength(MAX_LABEL_LENGTH))).check(
  z.refine((m) => Object.keys(m).length >= 2, 'id2label needs at least two labels'),
  z.refine((m) => Object.keys(m).length <= MAX_LABELS, `id2label may have at most ${MAX_LABELS} labels`),
  z.superRefine((m, ctx) => {
    const count = Object.keys(m).length;
    const missing = Array.from({ length: count }, (_, i) => String(i)).find((key) => !Object.hasOwn(m, key));
    if (missing !== undefined) ctx.addIssue({ code: 'custom', message: `id2label's keys must be 0 to ${count - 1} with no gap (output i is labelled id2label[i]); "${missing}" is missing`, input: m });
  }),
);
/** Only config.json's labels: what model:pack checks before comparing the graph's outputs with them. */
export const LabelsConfigSchema = z.looseObject({ id2label: Id2LabelSchema });
/**
 * The hub's head type; transformers.js applies sigmoid for multi-label and softmax otherwise.
 * null is the Python default some configs write out: a single-label head, as when absent.
 */
const ProblemType = z.nullish(z.enum(['single_label_classification', 'multi_label_classification'], 'problem_type must be single_label_classification or multi_label_classification (Lantern classifies; it does not regress)'));

/** A release's config.json: `model:pack` writes the "lantern" block the store's manifest needs. */
export const ModelConfigSchema = z.looseObject({ id2label: Id2LabelSchema, problem_type: ProblemType, lantern: LanternSection });
export type ModelConfig = z.infer<typeof ModelConfigSchema>;
export type LanternModelInfo = ModelConfig['lantern'];

/**
 * config.json as the worker reads it. A plain hub config (no "lantern" block) is enough: the
 * folder's files give the task, the session's metadata the inputs, outputs and batch size, and
 * `problem_type` the score function.
 */
export const RuntimeConfigSchema = z.looseObject({ id2label: Id2LabelSchema, problem_type: ProblemType, lantern: z.optional(z.partial(LanternSection)) });
export type RuntimeConfig = z.infer<typeof RuntimeConfigSchema>;

export type ModelTask = 'image-classification' | 'text-classification';

/**
 * The task a model runs as: its config's `lantern.task` when it names one, else what its files
 * hold (as transformers.js' Auto classes decide); undefined when neither says. The worker loads a
 * model this way, and the store refuses a release whose manifest claims another task.
 */
export function modelTask(config: RuntimeConfig, files: { preprocessor: boolean; tokenizer: boolean }): ModelTask | undefined {
  if (config.lantern?.task) return config.lantern.task;
  if (files.preprocessor) return 'image-classification';
  if (files.tokenizer) return 'text-classification';
  return undefined;
}

export type ScoreFunction = 'softmax' | 'sigmoid' | 'none';

/** How raw outputs become scores, as transformers.js decides it (plus Lantern's "probabilities"). */
export function scoreFunction(config: RuntimeConfig): ScoreFunction {
  if (config.lantern?.output === 'probabilities') return 'none';
  return config.problem_type === 'multi_label_classification' ? 'sigmoid' : 'softmax';
}

/** A side in pixels of an image the model is fed (see MAX_IMAGE_SIDE). */
const Side = z.int().check(z.positive(), z.lte(MAX_IMAGE_SIDE));
const HeightWidth = z.object({ height: Side, width: Side });
const Size = z.union([
  HeightWidth,
  /** longest_edge is read only to be refused (see the refinement below), never ignored. */
  z.object({ shortest_edge: Side, longest_edge: z.optional(z.unknown()) }),
  /** A bare number is read only to be refused (see the refinement below). */
  z.pipe(Side, z.transform((n) => ({ shortest_edge: n, as_number: true as const }))),
]);
const CropSize = z.union([
  HeightWidth,
  z.pipe(Side, z.transform((n) => ({ height: n, width: n }))),
]);
const PerChannel = z.union([z.number(), z.array(z.number()).check(z.minLength(1), z.maxLength(3))]);

/** PIL's resampling filters by number, as hub configs give them; Lantern implements 2 and 3. */
const RESAMPLE_NAMES: Record<number, string> = { 0: 'nearest', 1: 'Lanczos', 2: 'bilinear', 3: 'bicubic', 4: 'box', 5: 'Hamming' };

/**
 * Keys of hub image processors (transformers.js and Python) that change the pixels and that
 * Lantern does not implement. Rather than ignore one and feed the model pixels it was not trained
 * on, a folder using any of them is refused by name (unless the key is off: false or null).
 */
const UNIMPLEMENTED_KEYS = [
  'do_crop_margin', 'do_flip_channel_order', 'do_thumbnail', 'do_align_long_axis', 'ensure_multiple_of', 'keep_aspect_ratio',
  'max_pixels', 'min_pixels', 'max_size', 'size_divisibility', 'size_divisor', 'rescale_offset', 'do_split_into_patches',
  /** Older aliases of image_mean / image_std that transformers.js still reads. */
  'mean', 'std',
];

export const PreprocessorConfigSchema = z.pipe(z.looseObject({
  do_resize: z._default(z.boolean(), true),
  size: Size,
  /** Lantern extension: 'fit_height_pad_right' keeps aspect at a fixed height (OCR line models). */
  resize_mode: z.optional(z.enum(['stretch', 'shortest_edge', 'fit_height_pad_right'])),
  resample: z._default(z.int(), 2),
  /**
   * The processor class transformers.js builds for this file (AutoImageProcessor):
   * image_processor_type, else its older name feature_extractor_type. Read for crop_pct (below).
   */
  image_processor_type: z.optional(z.string()),
  feature_extractor_type: z.optional(z.string()),
  /**
   * ConvNeXt's rule (transformers.js ConvNextImageProcessor): below 384, scale the shortest edge
   * to floor(shortest_edge / crop_pct), then centre-crop shortest_edge²; from 384, warp to it.
   * Once parsed, the crop_pct transformers.js applies: see convnextCropPct. Its range is checked
   * only there (below): every other class ignores it, whatever its value.
   */
  crop_pct: z.optional(z.number()),
  /** Lantern extension: false = OpenCV-style bilinear (no prefilter); default PIL-style. */
  antialias: z._default(z.boolean(), true),
  do_center_crop: z._default(z.boolean(), false),
  crop_size: z.optional(CropSize),
  do_rescale: z._default(z.boolean(), true),
  rescale_factor: z._default(z.number().check(z.positive()), 1 / 255),
  /**
   * No default, as in transformers.js: absent means no normalisation, and image_mean / image_std
   * are read only when it is true (the refinement below refuses what would be ambiguous).
   */
  do_normalize: z.optional(z.boolean()),
  image_mean: z.optional(PerChannel),
  image_std: z.optional(PerChannel),
  /**
   * Read, never refused: Lantern always feeds RGB (alpha dropped, gray replicated). For an RGB
   * image that is what false gives too; transformers.js would feed a gray image with 1 channel and
   * an RGBA one (every image in a browser) with 4, which no 3-channel graph takes.
   */
  do_convert_rgb: z._default(z.boolean(), true),
  /** Lantern extension: one input channel (e.g. Fashion-MNIST). */
  do_convert_grayscale: z._default(z.boolean(), false),
  do_pad: z._default(z.boolean(), false),
  pad_size: z.optional(HeightWidth),
}), z.transform((config) => ({
  ...config,
  crop_pct: convnextCropPct(config),
  // transformers.js' ImageProcessor pads to size {height, width} when do_pad names no pad_size.
  pad_size: config.pad_size ?? (config.do_pad && 'height' in config.size ? config.size : undefined),
}))).check(z.superRefine((config, ctx) => {
  let refused = false;
  const refuse = (key: string, message: string) => {
    refused = true;
    ctx.addIssue({ code: 'custom', path: [key], message });
  };
  for (const key of UNIMPLEMENTED_KEYS) {
    const value = (config as Record<string, unknown>)[key];
    if (value !== undefined && value !== null && value !== false) refuse(key, `Lantern does not implement ${key}; the model would see pixels it was not trained on`);
  }
  // transformers.js reads size N as shortest_edge N with longest_edge N (max_size when given): the
  // image fitted within N×N, then padded to crop_size. Python's processors read it as an N×N
  // square (ViT) or a shortest edge of N (CLIP, ConvNeXt), by class, and the configs they save
  // hold an object. Which one the model was trained with is not known: say so.
  if ('as_number' in config.size) {
    const n = config.size.shortest_edge;
    refuse('size', `size ${n} (a number) is read differently by transformers.js (the image fitted within ${n}×${n}, then padded to crop_size) and by Python (a ${n}×${n} square or a shortest edge of ${n}, by processor class); write {"height": ${n}, "width": ${n}} or {"shortest_edge": ${n}}`);
  }
  if (config.resample !== 2 && config.resample !== 3) {
    refuse('resample', `Lantern implements resample 2 (bilinear) and 3 (bicubic), not ${config.resample}${RESAMPLE_NAMES[config.resample] ? ` (${RESAMPLE_NAMES[config.resample]})` : ''}`);
  }
  if (config.resample === 3 && !config.antialias) refuse('antialias', 'antialias: false (OpenCV-style) exists only for resample 2');
  // transformers.js caps the long side at longest_edge (and, unlike Python, also scales up to
  // it): Lantern implements neither, so it refuses the key rather than resize differently.
  if ('longest_edge' in config.size && config.size.longest_edge != null) refuse('size', 'Lantern does not implement size.longest_edge; the model would see pixels it was not trained on');
  // planResize scales to size.height and caps the width at size.width: a shortest_edge would fail every image.
  if (config.do_resize && config.resize_mode === 'fit_height_pad_right' && !('height' in config.size)) refuse('size', 'resize_mode fit_height_pad_right needs size {height, width}');
  if (config.do_center_crop && !config.crop_size) refuse('crop_size', 'do_center_crop needs crop_size');
  refuseNormalisation(config, refuse);
  // Given both, transformers.js' AutoImageProcessor builds image_processor_type's class, and its
  // pipelines (AutoProcessor) feature_extractor_type's: where only one is ConvNeXt, the pixels differ.
  if (config.image_processor_type !== undefined && config.feature_extractor_type !== undefined && isConvnext(config.image_processor_type) !== isConvnext(config.feature_extractor_type)) {
    refuse('feature_extractor_type', 'image_processor_type and feature_extractor_type name different processors (one of them ConvNeXt\'s), which transformers.js reads differently by entry point');
  }
  if (config.do_resize && config.crop_pct !== undefined) {
    // The share of the resized image the crop keeps (short side shortest_edge / crop_pct): 0 would
    // divide by zero, a negative one give a negative size, and above 1 the crop would be larger
    // than the image, bordered with black.
    if (!(config.crop_pct > 0 && config.crop_pct <= 1)) refuse('crop_pct', `ConvNextImageProcessor's crop_pct must be in (0, 1] (the share of the resized image its crop keeps), not ${config.crop_pct}`);
    if (!('shortest_edge' in config.size)) refuse('size', 'ConvNextImageProcessor needs size.shortest_edge (transformers.js throws without it)');
    if (config.do_center_crop) refuse('crop_pct', 'ConvNextImageProcessor\'s crop_pct (224/256 when absent) already crops; Lantern does not combine it with do_center_crop');
  }
  // Every image of a batch becomes one tensor of one size. Without a fixed size, every request
  // would fail at run time as if its image were at fault: say so at load (and at model:pack).
  if (!refused && !tensorSize(config)) {
    // fit_height_pad_right's padding is do_pad's (to pad_size, as transformers.js pads): without
    // it each image stays as wide as its aspect makes it, though size is {height, width}.
    if (config.do_resize && config.resize_mode === 'fit_height_pad_right') refuse('do_pad', 'resize_mode fit_height_pad_right pads right only with do_pad (to pad_size, size when absent); without it the tensor\'s width would follow the image');
    else refuse('size', 'the tensor size must be fixed: size {height, width}, do_center_crop with crop_size, ConvNeXt\'s crop_pct, or do_pad with pad_size');
  }
  // Likewise a pad_size smaller than the crop or resize every image gets, on a side it fixes.
  // What depends on the image (its own size without a resize or crop, fit_height_pad_right's
  // width) is checked per image: planResize refuses one larger than pad_size.
  const unpadded = config.do_resize || config.do_center_crop ? unpaddedSize(config) : undefined;
  if (!refused && config.do_pad && config.pad_size && unpadded && (unpadded.height > config.pad_size.height || (unpadded.width !== undefined && unpadded.width > config.pad_size.width))) {
    refuse('pad_size', `pad_size ${JSON.stringify(config.pad_size)} is smaller than the image it pads, ${JSON.stringify(unpadded)} (transformers.js would clip it)`);
  }
}));
export type PreprocessorConfig = z.infer<typeof PreprocessorConfigSchema>;

/**
 * Normalisation as transformers.js reads it (ImageProcessor.preprocess): only when do_normalize
 * is true, with image_mean and image_std per channel. Refused where the pixels would be in doubt:
 * - image_mean / image_std without do_normalize: transformers.js ignores them, Python's processors
 *   (their class default) and Lantern until now normalise with them;
 * - do_normalize without image_mean or image_std: transformers.js computes NaN;
 * - a list that is neither one value (Lantern applies it to every channel) nor one per channel.
 */
function refuseNormalisation(config: PreprocessorConfig, refuse: (key: string, message: string) => void): void {
  const given = (['image_mean', 'image_std'] as const).filter((key) => config[key] !== undefined);
  if (config.do_normalize === undefined) {
    if (given.length) refuse('do_normalize', `do_normalize is absent but ${given.join(' and ')} ${given.length > 1 ? 'are' : 'is'} given: transformers.js then does not normalise, Python's processors do; write do_normalize: true or false`);
    return;
  }
  if (!config.do_normalize) return;
  const channels = config.do_convert_grayscale ? 1 : 3;
  for (const key of ['image_mean', 'image_std'] as const) {
    const value = config[key];
    if (value === undefined) refuse(key, `do_normalize needs ${key} (transformers.js would compute NaN)`);
    else if (Array.isArray(value) && value.length !== 1 && value.length !== channels) refuse(key, `${key} has ${value.length} values for ${channels} channel${channels > 1 ? 's' : ''}`);
  }
}

/** Whether a processor type names ConvNeXt's class (or its alias), "Fast" suffix dropped as transformers.js does. */
const isConvnext = (type: string | undefined): boolean => type !== undefined && ['ConvNextImageProcessor', 'ConvNextFeatureExtractor'].includes(type.replace(/Fast$/, ''));

/**
 * The crop_pct transformers.js applies, as it picks the processor class (AutoImageProcessor):
 * only ConvNextImageProcessor reads it, and defaults it to 224/256. Every other class, and the
 * base ImageProcessor used when no type is named, ignores it: so does Lantern.
 */
function convnextCropPct(config: { image_processor_type?: string; feature_extractor_type?: string; crop_pct?: number }): number | undefined {
  return isConvnext(config.image_processor_type ?? config.feature_extractor_type) ? config.crop_pct ?? 224 / 256 : undefined;
}

/**
 * Height × width of the tensor this preprocessing produces, or undefined when it follows the
 * image (no crop, no fixed size). One rule for the worker's feeds and model:pack's graph check.
 */
export function tensorSize(p: PreprocessorConfig): { height: number; width: number } | undefined {
  if (p.do_pad && p.pad_size) return p.pad_size;
  const unpadded = unpaddedSize(p);
  return unpadded?.width !== undefined ? { height: unpadded.height, width: unpadded.width } : undefined;
}

/**
 * Height × width of the image before any padding, as far as the config fixes them:
 * fit_height_pad_right fixes only the height (the width follows the image's aspect, at most
 * size.width); undefined when it fixes neither.
 */
function unpaddedSize(p: PreprocessorConfig): { height: number; width?: number } | undefined {
  if (p.do_resize && p.crop_pct !== undefined && 'shortest_edge' in p.size) return { height: p.size.shortest_edge, width: p.size.shortest_edge };
  if (p.do_center_crop && p.crop_size) return p.crop_size;
  if (!('height' in p.size)) return undefined;
  return p.resize_mode === 'fit_height_pad_right' ? { height: p.size.height } : p.size;
}

/**
 * A special token as hub tokenizer_config.json files write it: a string, an AddedToken object
 * (`{"__type": "AddedToken", "content": "<pad>", …}`, older exports), or null for none. Read as
 * transformers.js' getTokenFromConfig reads it: the token's text, or undefined.
 */
const SpecialToken = z.optional(z.pipe(
  z.nullish(z.union([z.string(), z.looseObject({ __type: z.literal('AddedToken', 'a special token object must be an AddedToken'), content: z.string() })])),
  z.transform((token) => (typeof token === 'object' && token !== null ? token.content : token) || undefined),
));
/**
 * A length limit. Any positive number: HF writes a huge sentinel (1e30, beyond the safe-integer
 * range) for "no limit", and transformers.js accepts it; the encoder caps what it uses.
 */
const LengthLimit = z.optional(z.pipe(z.nullish(z.number().check(z.positive())), z.transform((n) => (n == null ? undefined : Math.floor(n)))));

export const TokenizerConfigSchema = z.looseObject({
  model_max_length: LengthLimit,
  max_length: LengthLimit,
  pad_token: SpecialToken,
  /** transformers.js pads with eos_token when the config has no pad_token. */
  eos_token: SpecialToken,
  unk_token: SpecialToken,
});
export type TokenizerConfig = z.infer<typeof TokenizerConfigSchema>;

/** A pipeline stage of tokenizer.json: an object, or null for none (the file always names each). */
const Stage = z.nullable(z.looseObject({}));

/**
 * `tokenizer.json`'s shape, the keys the tokenizer library refuses to build without (every file
 * the `tokenizers` library writes has them, null where a stage is absent), and no regular
 * expression that backtracks without bound on a long word (regex-hazard.ts): the worker runs its
 * patterns on the user's text. Whether the library can run the rest (the kinds of its stages) is
 * checked when the worker builds its encoder (text-preprocess.ts encodes a probe text and wants
 * token ids).
 */
export const TokenizerJsonSchema = z.looseObject({
  model: z.looseObject({ type: z.optional(z.string()) }),
  normalizer: Stage,
  pre_tokenizer: Stage,
  post_processor: Stage,
  decoder: Stage,
  added_tokens: z.array(z.looseObject({})),
}).check(z.superRefine((tokenizer, ctx) => {
  const problem = tokenizerRegexProblem(tokenizer);
  if (problem) ctx.addIssue({ code: 'custom', message: `a regular expression the worker would run on the user's text is refused: ${problem}`, input: tokenizer });
}));

/** A model's own configuration files beyond config.json, parsed: what its task reads. */
export type TaskConfigs =
  | { task: 'image-classification'; preprocessor: PreprocessorConfig }
  | { task: 'text-classification'; tokenizerJson: z.infer<typeof TokenizerJsonSchema>; tokenizerConfig: TokenizerConfig };

/**
 * The files a model of `task` reads besides config.json (JSON already parsed), checked as the
 * worker loads them. One rule for the worker's load (workers/tasks/task.ts) and the store's check
 * of a downloaded release (store/config-match.ts): a release the worker would refuse is refused
 * before it is activated, not after its first requests fail. `fail` types the error for the caller.
 */
export function parseTaskConfigs(
  task: ModelTask,
  files: { preprocessor?: unknown; tokenizer?: unknown; tokenizerConfig?: unknown },
  fail: (message: string, file: string) => LanternError,
): TaskConfigs {
  const parse = <T>(schema: z.ZodMiniType<T>, value: unknown, file: string) => {
    if (value === undefined) throw fail(`${file} is missing (the ${task} task reads it).`, file);
    return parseSchema(schema, value, file, (message) => fail(message, file));
  };
  if (task === 'image-classification') return { task, preprocessor: parse(PreprocessorConfigSchema, files.preprocessor, 'preprocessor_config.json') };
  return {
    task,
    tokenizerJson: parse(TokenizerJsonSchema, files.tokenizer, 'tokenizer.json'),
    // transformers.js loads a tokenizer without tokenizer_config.json: its defaults apply.
    tokenizerConfig: parse(TokenizerConfigSchema, files.tokenizerConfig ?? {}, 'tokenizer_config.json'),
  };
}
