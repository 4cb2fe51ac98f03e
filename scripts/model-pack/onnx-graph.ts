import { ValidationError } from '../../src/runtime/errors.ts';

/**
 * What `model:pack` needs to know about an ONNX graph before signing it: inputs and outputs
 * (names, element types, shapes) from onnxruntime-node — loading the graph in ORT is also the
 * strongest "can Lantern run this" check — plus opset and "quantized or not", which ORT does not
 * expose, from the ModelProto itself.
 *
 * The ModelProto is read with a minimal protobuf wire-format reader rather than protobufjs + onnx.proto:
 * we need three fields (opset_import, graph.node.op_type, graph.initializer.data_type), the wire
 * format is stable and tiny, and it avoids vendoring onnx.proto or depending on a transitive package.
 */
export interface TensorInfo {
  name: string;
  /** ORT element type: 'float32', 'int64', ... */
  type: string;
  /** Numbers, or names / -1 for symbolic dimensions. */
  shape: (number | string)[];
}

export interface GraphInfo {
  inputs: TensorInfo[];
  outputs: TensorInfo[];
  irVersion: number;
  /** Default-domain opset. */
  opset: number;
  /** Other operator domains the graph's nodes use (e.g. com.microsoft for quantized ops). */
  domains: string[];
  /** Quantize/dequantize or integer ops, or int8/uint8 weights. */
  quantized: boolean;
}

type Field = { no: number; wire: number; value: number; bytes?: Uint8Array };

class ProtoError extends Error {}

/** Iterates the fields of one protobuf message. */
function* fields(buf: Uint8Array): Generator<Field> {
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (pos >= buf.length) throw new ProtoError();
      const b = buf[pos++]!;
      result += (b & 0x7f) * scale;
      if (!(b & 0x80)) return result;
      scale *= 128;
    }
    throw new ProtoError();
  };
  while (pos < buf.length) {
    const tag = varint();
    const no = Math.floor(tag / 8);
    const wire = tag % 8;
    if (no === 0) throw new ProtoError();
    if (wire === 0) yield { no, wire, value: varint() };
    else if (wire === 1 || wire === 5) {
      pos += wire === 1 ? 8 : 4;
      if (pos > buf.length) throw new ProtoError();
      yield { no, wire, value: 0 };
    } else if (wire === 2) {
      const length = varint();
      if (pos + length > buf.length) throw new ProtoError();
      yield { no, wire, value: length, bytes: buf.subarray(pos, pos + length) };
      pos += length;
    } else throw new ProtoError();
  }
}

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes ?? new Uint8Array());
const QUANT_OPS = /^(QuantizeLinear|DequantizeLinear|DynamicQuantizeLinear|QLinear\w+|\w+Integer|QAttention|QGemm)$/;
/** TensorProto.DataType: 2 = UINT8, 3 = INT8. */
const INT8_TYPES = new Set([2, 3]);

/** Opset, domains and quantization from the ModelProto (top-level graph). */
export function readModelProto(bytes: Uint8Array, file: string): Pick<GraphInfo, 'irVersion' | 'opset' | 'domains' | 'quantized'> {
  let irVersion = 0;
  let opset = 0;
  const domains = new Set<string>();
  /** Domains nodes actually use: exporters declare many they never use. */
  const used = new Set<string>();
  let quantized = false;
  let sawGraph = false;
  try {
    for (const f of fields(bytes)) {
      if (f.no === 1 && f.wire === 0) irVersion = f.value;
      else if (f.no === 8 && f.bytes) {
        let domain = '';
        let version = 0;
        for (const o of fields(f.bytes)) {
          if (o.no === 1 && o.bytes) domain = text(o.bytes);
          if (o.no === 2 && o.wire === 0) version = o.value;
        }
        if (domain === '' || domain === 'ai.onnx') opset = version;
        else domains.add(domain);
      } else if (f.no === 7 && f.bytes) {
        sawGraph = true;
        for (const g of fields(f.bytes)) {
          if (g.no === 1 && g.bytes) {
            for (const n of fields(g.bytes)) {
              if (n.no === 4 && n.bytes && QUANT_OPS.test(text(n.bytes))) quantized = true;
              if (n.no === 7 && n.bytes) used.add(text(n.bytes));
            }
          } else if (g.no === 5 && g.bytes) {
            for (const t of fields(g.bytes)) if (t.no === 2 && t.wire === 0 && INT8_TYPES.has(t.value)) quantized = true;
          }
        }
      }
    }
  } catch (error) {
    if (error instanceof ProtoError) throw new ValidationError(`${file} is not a valid ONNX model: its protobuf data is corrupt or truncated.`);
    throw error;
  }
  if (!sawGraph || irVersion === 0) throw new ValidationError(`${file} is not an ONNX model: it has no graph or IR version.`);
  return { irVersion, opset, domains: [...domains].filter((d) => used.has(d)).sort(), quantized };
}

interface OrtValueMetadata { name: string; isTensor: boolean; type?: string; shape?: readonly (number | string)[] }

/**
 * Loads the graph in onnxruntime-web's WASM build, the ORT the devices run (so what it cannot load
 * is refused here, not on a device), and a dependency of the package: the installed
 * `lantern-model` needs nothing else. Imported lazily: the build plugin never needs it.
 */
export async function inspectOnnx(bytes: Uint8Array, file: string): Promise<GraphInfo> {
  const proto = readModelProto(bytes, file);
  const ort = await import('onnxruntime-web/wasm');
  // One thread: a tool that loads a graph once has no use for ORT's helper threads.
  ort.env.wasm.numThreads = 1;
  let session;
  try {
    session = await ort.InferenceSession.create(bytes);
  } catch {
    throw new ValidationError(`${file} cannot be loaded by onnxruntime: it uses an unsupported operator or is damaged.`);
  }
  const describe = (list: readonly OrtValueMetadata[]): TensorInfo[] => list.map((m) => ({
    name: m.name,
    type: m.isTensor ? m.type ?? 'unknown' : 'non-tensor',
    shape: m.isTensor ? [...(m.shape ?? [])] : [],
  }));
  const info = { ...proto, inputs: describe(session.inputMetadata as readonly OrtValueMetadata[]), outputs: describe(session.outputMetadata as readonly OrtValueMetadata[]) };
  await session.release();
  return info;
}

export type Task = 'image-classification' | 'text-classification';

export interface GraphPlan {
  task: Task;
  batch: 'dynamic' | 'fixed';
  inputNames: string[];
  outputName: string;
  /** Image models: [channels, height, width] when the graph fixes them. */
  image?: { channels: 1 | 3; height?: number; width?: number };
}

const TEXT_INPUTS = new Set(['input_ids', 'attention_mask', 'token_type_ids']);
const fixed = (d: number | string | undefined): number | undefined => (typeof d === 'number' && d > 0 ? d : undefined);

/**
 * Decides how Lantern feeds and reads this graph, or refuses with one sentence naming `file`.
 * Image: one float32 input [N, C, H, W] with C ∈ {1, 3}. Text: int64 input_ids (+ attention_mask,
 * token_type_ids) [N, sequence]. Output: a float [N, labels] tensor.
 */
export function planGraph(graph: GraphInfo, file: string, labels: number, outputName?: string): GraphPlan {
  const first = graph.inputs[0];
  if (!first) throw new ValidationError(`${file} has no inputs.`);
  let task: Task;
  let image: GraphPlan['image'];
  if (graph.inputs.some((i) => i.name === 'input_ids')) {
    task = 'text-classification';
    const bad = graph.inputs.find((i) => !TEXT_INPUTS.has(i.name) || i.type !== 'int64' || i.shape.length !== 2);
    if (bad) throw new ValidationError(`${file} has a text input Lantern cannot feed: it needs int64 [batch, sequence] input_ids, attention_mask and token_type_ids only.`);
  } else {
    task = 'image-classification';
    if (graph.inputs.length !== 1) throw new ValidationError(`${file} has ${graph.inputs.length} inputs; an image classifier must take a single pixel tensor.`);
    if (first.type !== 'float32') throw new ValidationError(`${file} has an input of type ${first.type}; Lantern feeds images as float32 and text as int64 input_ids.`);
    const channels = first.shape[1];
    if (first.shape.length !== 4 || (channels !== 1 && channels !== 3)) {
      throw new ValidationError(`${file} takes a float32 input that is not [batch, 1 or 3 channels, height, width] (NCHW).`);
    }
    image = { channels, ...(fixed(first.shape[2]) ? { height: fixed(first.shape[2]) } : {}), ...(fixed(first.shape[3]) ? { width: fixed(first.shape[3]) } : {}) };
  }
  const isClassifier = (o: TensorInfo) => (o.type === 'float32' || o.type === 'float16') && o.shape.length === 2;
  const output = outputName !== undefined ? graph.outputs.find((o) => o.name === outputName) : graph.outputs.find(isClassifier);
  if (!output) throw new ValidationError(outputName !== undefined ? `${file} has no output with the configured output_name.` : `${file} has no classifier output: Lantern needs a float output of shape [batch, labels].`);
  if (!isClassifier(output)) throw new ValidationError(`${file}'s output is not a float tensor of shape [batch, labels].`);
  const width = fixed(output.shape[1]);
  if (width !== undefined && width !== labels) throw new ValidationError(`${file} outputs ${width} scores per input but there are ${labels} labels.`);
  const batchDim = first.shape[0];
  return {
    task,
    batch: batchDim === 1 ? 'fixed' : 'dynamic',
    inputNames: graph.inputs.map((i) => i.name),
    outputName: output.name,
    ...(image ? { image } : {}),
  };
}

/** One line for the CLI: what was found. */
export function describeGraph(graph: GraphInfo): string {
  const t = (list: TensorInfo[]) => list.map((i) => `${i.name} ${i.type} [${i.shape.join(', ')}]`).join('; ');
  return `inputs ${t(graph.inputs)} → outputs ${t(graph.outputs)}; opset ${graph.opset}${graph.domains.length ? ` + ${graph.domains.join(', ')}` : ''}; ${graph.quantized ? 'quantized' : 'not quantized'}`;
}
