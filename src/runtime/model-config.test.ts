import { describe, expect, it } from 'vitest';
import { PreprocessorConfigSchema, RuntimeConfigSchema, tensorSize } from './model-config.ts';
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

describe('hub preprocessor configs', () => {
  it('accepts ViT, DeiT-style bicubic and ConvNeXt crop_pct configs, and keys that are switched off', () => {
    expect(refusal(VIT)).toBeUndefined();
    expect(refusal({ ...VIT, resample: 3, do_center_crop: true, crop_size: 224, size: { shortest_edge: 256 } })).toBeUndefined();
    expect(refusal({ ...VIT, size: { shortest_edge: 224 }, crop_pct: 0.875, resample: 3 })).toBeUndefined();
    expect(refusal({ ...VIT, do_flip_channel_order: false, do_thumbnail: null })).toBeUndefined();
  });

  it('refuses, by name, every pixel-changing key Lantern does not implement', () => {
    for (const [key, value] of [['do_flip_channel_order', true], ['do_thumbnail', true], ['size_divisor', 32], ['keep_aspect_ratio', true], ['ensure_multiple_of', 14], ['mean', [0.5]], ['do_crop_margin', true]] as const) {
      expect(refusal({ ...VIT, [key]: value })).toBe(`preprocessor_config.json is not valid at "${key}": Lantern does not implement ${key}; the model would see pixels it was not trained on.`);
    }
    expect(refusal({ ...VIT, resample: 0 })).toMatch(/"resample": Lantern implements resample 2 \(bilinear\) and 3 \(bicubic\), not 0 \(nearest\)/);
    expect(refusal({ ...VIT, resample: 3, antialias: false })).toMatch(/"antialias"/);
    expect(refusal({ ...VIT, crop_pct: 0.9 })).toMatch(/"crop_pct": crop_pct needs size.shortest_edge/);
    expect(refusal({ ...VIT, size: { shortest_edge: 224 }, crop_pct: 0.9, do_center_crop: true, crop_size: 224 })).toMatch(/cannot be combined with do_center_crop/);
    expect(refusal({ ...VIT, size: { shortest_edge: 224 }, crop_pct: 1.5 })).toMatch(/"crop_pct"/);
  });

  it('gives the tensor size the worker feeds and model:pack checks, crop_pct included', () => {
    expect(tensorSize(PreprocessorConfigSchema.parse({ ...VIT, size: { shortest_edge: 224 }, crop_pct: 0.875 }))).toEqual({ height: 224, width: 224 });
    expect(tensorSize(PreprocessorConfigSchema.parse({ ...VIT, size: { shortest_edge: 224 } }))).toBeUndefined();
  });
});

describe('runtime config.json', () => {
  it('needs no "lantern" block: a hub config with id2label is enough', () => {
    expect(RuntimeConfigSchema.parse({ id2label: { 0: 'a', 1: 'b' }, model_type: 'vit' }).lantern).toBeUndefined();
    expect(RuntimeConfigSchema.safeParse({ id2label: { 0: 'a' } }).success).toBe(false);
  });
});
