import type { z } from 'zod/mini';
import type { ort } from '../ort.ts';
import { ModelLoadError } from '../../src/runtime/errors.ts';
import { parseSchema } from '../../src/runtime/schema.ts';
import { modelTask, parseTaskConfigs, type ModelTask, type RuntimeConfig } from '../../src/runtime/model-config.ts';
import type { Note } from '../../src/runtime/notes.ts';
import type { ClassifyInput, ModelFiles } from '../../src/runtime/protocol.ts';
import { TokenEncoder } from '../text-preprocess.ts';
import { ImageTask } from './image-task.ts';
import { sessionInputs } from './model-io.ts';
import { TextTask } from './text-task.ts';

/** One input made ready for batching, with what the user should know about it. */
export interface Prepared<T> {
  item: T;
  notes: Note[];
}

/** What the engine needs of a task, over the task's own prepared item type. */
export interface TaskAdapter<P> {
  readonly kind: 'image' | 'text';
  /** Checks one input and makes it ready for batching; throws a typed error for bad input. */
  prepare(input: ClassifyInput): Promise<Prepared<P>>;
  /** The session's feeds for a batch of prepared inputs. */
  feeds(group: P[]): Record<string, ort.Tensor>;
  /** Takes back a batch's prepared inputs and feeds once its run has finished: their memory may be reused. */
  recycle?(items: P[], feeds: Record<string, ort.Tensor>): void;
  /** What the model will see of a prepared input, for the result cache's key. */
  cacheBytes(item: P): Uint32Array | Float32Array;
}

/** The typed arrays behind a batch's feeds, for a task to take back into its pools. */
export function feedArrays(feeds: Record<string, ort.Tensor>): ArrayBufferView[] {
  return Object.values(feeds).flatMap((feed) => (ArrayBuffer.isView(feed.data) ? [feed.data] : []));
}

/** A loaded model's task: what it accepts and how a batch of inputs becomes its feeds. */
export type Task = ImageTask | TextTask;

/** A bad file of the model folder: a ModelLoadError naming it. */
const loadError = (message: string, file: string) => new ModelLoadError(message, { file });

/** Validates one file of the model folder. */
export function parseModelFile<T>(schema: z.ZodMiniType<T>, value: unknown, file: string): T {
  return parseSchema(schema, value, file, (message) => loadError(message, file));
}

/** Reads the task's files (before the session exists, so a bad folder costs no session). */
export function taskFactory(config: RuntimeConfig, files: ModelFiles): (session: ort.InferenceSession) => Task {
  const own = parseTaskConfigs(taskOf(config, files), files, loadError);
  if (own.task === 'image-classification') return (session) => new ImageTask(own.preprocessor, sessionInputs(session, config));
  let encoder: TokenEncoder;
  try {
    encoder = new TokenEncoder(own.tokenizerJson, own.tokenizerConfig);
  } catch (error) {
    throw new ModelLoadError(`tokenizer.json could not be loaded: ${(error as Error).message}`, { file: 'tokenizer.json' });
  }
  return (session) => new TextTask(encoder, sessionInputs(session, config));
}

function taskOf(config: RuntimeConfig, files: ModelFiles): ModelTask {
  const task = modelTask(config, { preprocessor: files.preprocessor !== undefined, tokenizer: files.tokenizer !== undefined });
  if (!task) throw new ModelLoadError('The model has neither preprocessor_config.json (image model) nor tokenizer.json (text model).');
  return task;
}
