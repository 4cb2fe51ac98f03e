import { describe, expect, it } from 'vitest';
import { labelsOf } from './labels.ts';
import { ModelConfigSchema, PreprocessorConfigSchema, RuntimeConfigSchema, scoreFunction, tensorSize, TokenizerConfigSchema } from './model-config.ts';
import { describeSchemaError } from './schema.ts';

const refusal = (json: object): string | undefined => {
  const result = PreprocessorConfigSchema.safeParse(json);
  return result.success ? undefined : describeSchemaError('preprocessor_config.json', result.error);
};

/** A ViT image processor as the hub publishes it. */
const VIT = {
  do_normalize: true, do_rescale: true, do_resize: true, image_mean: [0.5, 0.5, 0.5], image_processor_type: 'ViTImageProcessor',
  image_std: [0.5, 0.5, 0.5], resample: 2, rescale_factor: 0.00392156862745098, size: { height: 224, width: 224 },
};
/** A ConvNeXt image processor as the hub publishes it. */
const CONVNEXT = { ...VIT, image_processor_type: 'ConvNextImageProcessor', size: { shortest_edge: 224 }, crop_pct: 0.875, resample: 3 };

describe('hub preprocessor configs', () => {
  it('accepts ViT, DeiT-style bicubic and ConvNeXt crop_pct configs, and keys that are switched off', () => {
    expect(refusal(VIT)).toBeUndefined();
    expect(refusal({ ...VIT, resample: 3, do_center_crop: true, crop_size: 224, size: { shortest_edge: 256 } })).toBeUndefined();
    expect(refusal(CONVNEXT)).toBeUndefined();
    expect(refusal({ ...VIT, do_flip_channel_order: false, do_thumbnail: null })).toBeUndefined();
  });

  it('refuses, by name, every pixel-changing key Lantern does not implement', () => {
    for (const [key, value] of [['do_flip_channel_order', true], ['do_thumbnail', true], ['size_divisor', 32], ['keep_aspect_ratio', true], ['ensure_multiple_of', 14], ['mean', [0.5]], ['do_crop_margin', true]] as const) {
      expect(refusal({ ...VIT, [key]: value })).toBe(`preprocessor_config.json is not valid at "${key}": Lantern does not implement ${key}; the model would see pixels it was not trained on.`);
    }
    expect(refusal({ ...VIT, resample: 0 })).toMatch(/"resample": Lantern implements resample 2 \(bilinear\) and 3 \(bicubic\), not 0 \(nearest\)/);
    expect(refusal({ ...VIT, resample: 3, antialias: false })).toMatch(/"antialias"/);
    expect(refusal({ ...CONVNEXT, size: { height: 224, width: 224 } })).toBe('preprocessor_config.json is not valid at "size": ConvNextImageProcessor needs size.shortest_edge (transformers.js throws without it).');
    expect(refusal({ ...CONVNEXT, do_center_crop: true, crop_size: 224 })).toMatch(/"crop_pct": .*Lantern does not combine it with do_center_crop/);
  });

  it('refuses a crop_pct outside (0, 1] only where it is applied: ConvNeXt\'s resize', () => {
    for (const cropPct of [1.5, 0, -0.5]) {
      expect(refusal({ ...CONVNEXT, crop_pct: cropPct }))
        .toBe(`preprocessor_config.json is not valid at "crop_pct": ConvNextImageProcessor's crop_pct must be in (0, 1] (the share of the resized image its crop keeps), not ${cropPct}.`);
      // Every other class ignores it, as transformers.js does; so does ConvNeXt without a resize.
      expect(refusal({ ...VIT, crop_pct: cropPct })).toBeUndefined();
      expect(refusal({ ...CONVNEXT, image_processor_type: undefined, size: { shortest_edge: 256 }, do_center_crop: true, crop_size: 224, crop_pct: cropPct })).toBeUndefined();
      expect(refusal({ ...CONVNEXT, do_resize: false, size: { height: 224, width: 224 }, crop_pct: cropPct })).toBeUndefined();
    }
    expect(refusal({ ...CONVNEXT, crop_pct: 1 })).toBeUndefined();
  });

  it('gives the tensor size the worker feeds and model:pack checks, crop_pct included', () => {
    expect(tensorSize(PreprocessorConfigSchema.parse(CONVNEXT))).toEqual({ height: 224, width: 224 });
  });

  it('reads crop_pct only for ConvNeXt\'s processor class, as transformers.js picks it, with its default of 224/256', () => {
    const cropPct = (json: object) => PreprocessorConfigSchema.parse(json).crop_pct;
    for (const type of [{ image_processor_type: 'ConvNextImageProcessorFast' }, { feature_extractor_type: 'ConvNextFeatureExtractor' }, { image_processor_type: undefined, feature_extractor_type: 'ConvNextImageProcessor' }]) {
      expect(cropPct({ ...CONVNEXT, ...type })).toBe(0.875);
    }
    expect(cropPct({ ...CONVNEXT, crop_pct: undefined })).toBe(224 / 256);
    // Any other class, and the base ImageProcessor when no type is named, ignore it.
    for (const type of [{ image_processor_type: 'ViTImageProcessor' }, { image_processor_type: undefined }, { image_processor_type: 'ViTImageProcessor', feature_extractor_type: 'ViTFeatureExtractor' }]) {
      const config = { ...VIT, crop_pct: 0.875, ...type };
      expect(cropPct(config)).toBeUndefined();
      expect(tensorSize(PreprocessorConfigSchema.parse(config))).toEqual({ height: 224, width: 224 });
      expect(refusal({ ...config, size: { shortest_edge: 224 } })).toMatch(/"size": the tensor size must be fixed/);
      expect(refusal({ ...config, size: { shortest_edge: 256 }, do_center_crop: true, crop_size: 224 })).toBeUndefined();
    }
    // ConvNeXt's default crops too: a centre crop on top is refused, not applied to other pixels.
    expect(refusal({ ...CONVNEXT, crop_pct: undefined, size: { shortest_edge: 256 }, do_center_crop: true, crop_size: 224 })).toMatch(/"crop_pct"/);
    // AutoImageProcessor would build ViT's processor, transformers.js' pipelines ConvNeXt's.
    expect(refusal({ ...CONVNEXT, image_processor_type: 'ViTImageProcessor', feature_extractor_type: 'ConvNextFeatureExtractor' })).toMatch(/"feature_extractor_type": image_processor_type and feature_extractor_type name different processors/);
    expect(refusal({ ...CONVNEXT, feature_extractor_type: 'ConvNextFeatureExtractor' })).toBeUndefined();
    // Without a resize, ConvNextImageProcessor never reads size or crop_pct.
    expect(refusal({ ...CONVNEXT, do_resize: false, size: { height: 224, width: 224 } })).toBeUndefined();
  });

  it('refuses a pad_size smaller than the size every image is brought to, and pads to size when do_pad names none', () => {
    expect(refusal({ ...VIT, do_pad: true, pad_size: { height: 224, width: 200 } }))
      .toBe('preprocessor_config.json is not valid at "pad_size": pad_size {"height":224,"width":200} is smaller than the image it pads, {"height":224,"width":224} (transformers.js would clip it).');
    expect(refusal({ ...CONVNEXT, do_pad: true, pad_size: { height: 256, width: 200 } })).toMatch(/"pad_size"/);
    expect(refusal({ ...VIT, size: { shortest_edge: 256 }, do_center_crop: true, crop_size: 224, do_pad: true, pad_size: { height: 200, width: 256 } })).toMatch(/"pad_size"/);
    // Without a resize or crop each image keeps its size: only a larger one is refused (planResize).
    expect(refusal({ ...VIT, do_resize: false, do_pad: true, pad_size: { height: 200, width: 200 } })).toBeUndefined();
    // fit_height_pad_right fixes the height only: a pad_size lower than it fits no image.
    const ocrLine = { ...VIT, size: { height: 48, width: 192 }, resize_mode: 'fit_height_pad_right', do_pad: true };
    expect(refusal({ ...ocrLine, pad_size: { height: 32, width: 192 } }))
      .toBe('preprocessor_config.json is not valid at "pad_size": pad_size {"height":32,"width":192} is smaller than the image it pads, {"height":48} (transformers.js would clip it).');
    // Its width follows the image: a narrower pad_size fits narrow images (wider ones fail in planResize).
    expect(refusal({ ...ocrLine, pad_size: { height: 48, width: 100 } })).toBeUndefined();
    expect(tensorSize(PreprocessorConfigSchema.parse({ ...ocrLine, pad_size: { height: 64, width: 256 } }))).toEqual({ height: 64, width: 256 });
    // A centre crop fixes both sides again.
    expect(refusal({ ...ocrLine, do_center_crop: true, crop_size: { height: 48, width: 192 }, pad_size: { height: 48, width: 100 } })).toMatch(/"pad_size"/);
    // transformers.js' ImageProcessor infers pad_size from size {height, width}.
    const inferred = PreprocessorConfigSchema.parse({ ...VIT, do_resize: false, do_pad: true });
    expect(inferred.pad_size).toEqual({ height: 224, width: 224 });
    expect(PreprocessorConfigSchema.parse({ ...VIT, do_pad: false }).pad_size).toBeUndefined();
  });

  it('refuses at load a config whose tensor size would follow the image (every request would fail as if its image were bad)', () => {
    // transformers.js feeds such a tensor as it comes; Lantern batches one fixed size.
    expect(refusal({ ...VIT, size: { shortest_edge: 224 } })).toBe('preprocessor_config.json is not valid at "size": the tensor size must be fixed: size {height, width}, do_center_crop with crop_size, ConvNeXt\'s crop_pct, or do_pad with pad_size.');
    expect(refusal({ ...VIT, size: { shortest_edge: 256 }, do_center_crop: true })).toBe('preprocessor_config.json is not valid at "crop_size": do_center_crop needs crop_size.');
    // fit_height_pad_right pads (right, and to size when pad_size is absent) only through do_pad.
    const ocrLine = { ...VIT, size: { height: 48, width: 192 }, resize_mode: 'fit_height_pad_right' };
    expect(refusal(ocrLine)).toBe('preprocessor_config.json is not valid at "do_pad": resize_mode fit_height_pad_right pads right only with do_pad (to pad_size, size when absent); without it the tensor\'s width would follow the image.');
    expect(tensorSize(PreprocessorConfigSchema.parse({ ...ocrLine, do_pad: true }))).toEqual({ height: 48, width: 192 });
    // It scales to size.height: planResize would fail every image of a shortest_edge config.
    expect(refusal({ ...ocrLine, size: { shortest_edge: 48 }, do_pad: true, pad_size: { height: 48, width: 192 } }))
      .toBe('preprocessor_config.json is not valid at "size": resize_mode fit_height_pad_right needs size {height, width}.');
  });

  it('refuses size as a bare number, which transformers.js and Python resize differently, saying what to write', () => {
    const message = 'preprocessor_config.json is not valid at "size": size 224 (a number) is read differently by transformers.js (the image fitted within 224×224, then padded to crop_size) and by Python (a 224×224 square or a shortest edge of 224, by processor class); write {"height": 224, "width": 224} or {"shortest_edge": 224}.';
    for (const crop of [{ do_center_crop: true, crop_size: 224 }, { do_center_crop: true, crop_size: { height: 224, width: 224 } }, {}, { do_pad: true, pad_size: { height: 224, width: 224 } }]) {
      expect(refusal({ ...VIT, size: 224, ...crop })).toBe(message);
    }
    expect(refusal({ ...VIT, size: 256, crop_pct: 0.875 })).toMatch(/^preprocessor_config.json is not valid at "size": size 256 \(a number\)/);
    // A crop_size number is a square in both: accepted.
    expect(refusal({ ...VIT, size: { shortest_edge: 256 }, do_center_crop: true, crop_size: 224 })).toBeUndefined();
  });

  it('normalises only when do_normalize is true, as transformers.js does, and refuses what would leave the pixels in doubt', () => {
    const { do_normalize: _, image_mean: _mean, image_std: _std, ...plain } = VIT;
    // Absent: no normalisation (transformers.js' default); false: mean and std unread.
    expect(PreprocessorConfigSchema.parse(plain).do_normalize).toBeUndefined();
    expect(refusal({ ...plain, do_normalize: false, image_mean: [0.5, 0.5, 0.5] })).toBeUndefined();
    expect(refusal({ ...plain, image_mean: [0.5, 0.5, 0.5], image_std: [0.5, 0.5, 0.5] })).toBe('preprocessor_config.json is not valid at "do_normalize": do_normalize is absent but image_mean and image_std are given: transformers.js then does not normalise, Python\'s processors do; write do_normalize: true or false.');
    expect(refusal({ ...plain, do_normalize: true, image_mean: [0.5, 0.5, 0.5] })).toBe('preprocessor_config.json is not valid at "image_std": do_normalize needs image_std (transformers.js would compute NaN).');
    expect(refusal({ ...VIT, image_std: [0.5, 0.5] })).toBe('preprocessor_config.json is not valid at "image_std": image_std has 2 values for 3 channels.');
    expect(refusal({ ...VIT, do_convert_grayscale: true })).toBe('preprocessor_config.json is not valid at "image_mean": image_mean has 3 values for 1 channel.');
    // One value for every channel (a number, or a one-value list as model:pack once wrote).
    expect(refusal({ ...VIT, image_mean: 0.5, image_std: [0.5] })).toBeUndefined();
  });

  it('refuses size.longest_edge by name instead of resizing without it', () => {
    expect(refusal({ ...VIT, size: { shortest_edge: 256, longest_edge: 320 }, do_center_crop: true, crop_size: 224 }))
      .toBe('preprocessor_config.json is not valid at "size": Lantern does not implement size.longest_edge; the model would see pixels it was not trained on.');
    expect(refusal({ ...VIT, size: { shortest_edge: 256, longest_edge: null }, do_center_crop: true, crop_size: 224 })).toBeUndefined();
  });
});

describe('runtime config.json', () => {
  it('needs no "lantern" block: a hub config with id2label is enough', () => {
    expect(RuntimeConfigSchema.parse({ id2label: { 0: 'a', 1: 'b' }, model_type: 'vit' }).lantern).toBeUndefined();
    expect(RuntimeConfigSchema.safeParse({ id2label: { 0: 'a' } }).success).toBe(false);
  });

  it('refuses id2label with a gap in its keys, naming the missing index (output i is labelled id2label[i])', () => {
    for (const schema of [RuntimeConfigSchema, ModelConfigSchema]) {
      const result = schema.safeParse({ id2label: { 0: 'a', 1: 'b', 3: 'd' }, lantern: { id: 'a', version: '1.0.0', task: 'image-classification' } });
      expect(result.success ? undefined : describeSchemaError('config.json', result.error))
        .toBe('config.json is not valid at "id2label": id2label\'s keys must be 0 to 2 with no gap (output i is labelled id2label[i]); "2" is missing.');
    }
    // "01" is not the key transformers.js looks up for output 1.
    expect(RuntimeConfigSchema.safeParse({ id2label: { 0: 'a', '01': 'b' } }).success).toBe(false);
    expect(labelsOf(RuntimeConfigSchema.parse({ id2label: { 2: 'c', 0: 'a', 1: 'b', 10: 'k', 3: 'd', 4: 'e', 5: 'f', 6: 'g', 7: 'h', 8: 'i', 9: 'j' } })))
      .toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k']);
  });

  it('reads problem_type null (written by Python when unset) as a single-label head, as transformers.js does', () => {
    const config = RuntimeConfigSchema.parse({ id2label: { 0: 'a', 1: 'b' }, problem_type: null });
    expect(scoreFunction(config)).toBe('softmax');
    expect(ModelConfigSchema.safeParse({ id2label: { 0: 'a', 1: 'b' }, problem_type: null, lantern: { id: 'a', version: '1.0.0', task: 'text-classification' } }).success).toBe(true);
  });
});

describe('hub tokenizer_config.json', () => {
  it('reads AddedToken objects, null tokens and the "no limit" sentinel as transformers.js does', () => {
    const added = (content: string) => ({ __type: 'AddedToken', content, lstrip: false, normalized: true, rstrip: false, single_word: false });
    // 1e30 as HF writes it: beyond the safe-integer range.
    const config = TokenizerConfigSchema.parse({ model_max_length: 1000000000000000019884624838656, pad_token: added('<pad>'), unk_token: null, eos_token: '</s>', max_length: null });
    expect(config).toMatchObject({ model_max_length: 1e30, pad_token: '<pad>', unk_token: undefined, eos_token: '</s>', max_length: undefined });
    expect(TokenizerConfigSchema.safeParse({ pad_token: { content: '<pad>' } }).success).toBe(false);
  });
});
