import { ortApi, type ort } from '../ort.ts';
import { InputError, ModelLoadError } from '../../src/runtime/errors.ts';
import { tensorSize, type PreprocessorConfig } from '../../src/runtime/model-config.ts';
import type { ClassifyInput } from '../../src/runtime/protocol.ts';
import { ArrayPool } from '../buffers.ts';
import { prepareImage } from '../image-decode.ts';
import { channelCount } from '../image-preprocess.ts';
import type { InputInfo } from './model-io.ts';
import { feedArrays, type Prepared, type TaskAdapter } from './task.ts';

/** Image classification: decode + resize + normalise each input, stack them as NCHW float32. */
export class ImageTask implements TaskAdapter<Float32Array> {
  readonly kind = 'image' as const;
  private readonly input: string;
  /** Tensors of finished batches, refilled by the next images (see buffers.ts for why). */
  private readonly tensors = new ArrayPool(Float32Array);
  /** Stacked batches of finished runs, for the next batch of a batching model. */
  private readonly batches = new ArrayPool(Float32Array, 2);

  constructor(private readonly preprocessor: PreprocessorConfig, inputs: InputInfo[]) {
    this.input = pixelInput(inputs);
  }

  async prepare(input: ClassifyInput): Promise<Prepared<Float32Array>> {
    if (input.kind !== 'image') throw new InputError('This model classifies images, not text.', { reason: 'wants-image' });
    const image = await prepareImage(input.image, this.preprocessor, this.tensors);
    return { item: image.tensor, notes: image.notes };
  }

  feeds(group: Float32Array[]): Record<string, ort.Tensor> {
    const first = group[0]!;
    const channels = channelCount(this.preprocessor);
    const { height, width } = this.shape(first.length / channels);
    // One image (every request of a fixed-batch model) is its own batch: no 600 KB copy.
    const batch = group.length === 1 ? first : stack(group, this.batches.take(first.length * group.length));
    return { [this.input]: new (ortApi().Tensor)('float32', batch, [group.length, channels, height, width]) };
  }

  recycle(items: Float32Array[], feeds: Record<string, ort.Tensor>): void {
    this.tensors.give(items);
    this.batches.give(feedArrays(feeds));
  }

  cacheBytes(item: Float32Array): Float32Array {
    return item;
  }

  private shape(plane: number): { height: number; width: number } {
    const target = tensorSize(this.preprocessor);
    if (target && target.height * target.width === plane) return target;
    throw new InputError('The image could not be brought to the model\'s input size.', { reason: 'unprepared' });
  }
}

/** Equal-sized tensors one after another, into `batch`: a batch. */
function stack(tensors: Float32Array[], batch: Float32Array): Float32Array {
  const size = tensors[0]!.length;
  tensors.forEach((tensor, i) => batch.set(tensor, i * size));
  return batch;
}

/** The pixel input: the only input, or the only floating-point one. */
function pixelInput(inputs: InputInfo[]): string {
  const candidates = inputs.length === 1 ? inputs : inputs.filter((i) => i.type?.startsWith('float'));
  if (candidates.length !== 1) {
    throw new ModelLoadError(`An image model needs one pixel input; this one has ${inputs.map((i) => i.name).join(', ')}.`);
  }
  return candidates[0]!.name;
}
