import { CancelledError, Lantern, type LanternInput, type LoadProgress } from 'lantern';

// The signed store configured next to this page (registry-config.json, trust-store.json).
const lantern = Lantern.create();

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $<HTMLSpanElement>('status');
const progress = $<HTMLProgressElement>('progress');
const cancel = $<HTMLButtonElement>('cancel');
const predictions = $<HTMLOListElement>('predictions');
let controller: AbortController | undefined;

function showProgress(p: LoadProgress): void {
  if (p.phase === 'download') {
    status.textContent = `Downloading ${Math.round(p.loadedBytes / 1024)} KB`;
    if (p.totalBytes) progress.value = p.loadedBytes / p.totalBytes;
  } else {
    status.textContent = p.phase === 'session' ? 'Starting the model…' : 'Model ready';
    if (p.phase === 'ready') progress.value = 1;
  }
}

async function run(model: string, input: (signal: AbortSignal) => Promise<LanternInput>): Promise<void> {
  controller?.abort();
  const current = (controller = new AbortController());
  const { signal } = current;
  cancel.disabled = false;
  predictions.replaceChildren();
  progress.value = 0;
  try {
    await lantern.load(model, { signal, onProgress: showProgress });
    const result = await lantern.classify(model, await input(signal), { topK: 3, signal, timeoutMs: 30_000 });
    status.textContent = `${result.modelId} ${result.version} on ${result.backend} in ${result.timings.totalMs.toFixed(0)} ms`;
    predictions.replaceChildren(...result.predictions.map((p) => Object.assign(document.createElement('li'), {
      textContent: `${p.displayName ?? p.label}: ${(p.score * 100).toFixed(1)}%`,
    })));
  } catch (error) {
    const cancelled = error instanceof CancelledError || (error as Error).name === 'AbortError';
    status.textContent = cancelled ? 'Cancelled' : `${(error as Error).name}: ${(error as Error).message}`;
  } finally {
    if (controller === current) cancel.disabled = true;
  }
}

const imageModel = $<HTMLSelectElement>('image-model');
imageModel.addEventListener('change', () => {
  $<HTMLInputElement>('image-url').value = imageModel.selectedOptions[0]?.dataset.sample ?? '';
});
$('classify-image').addEventListener('click', () => run(imageModel.value, async (signal) => {
  const response = await fetch($<HTMLInputElement>('image-url').value, { signal });
  return response.blob();
}));
$('classify-text').addEventListener('click', () => run('spam-filter', async () => $<HTMLTextAreaElement>('text').value));
cancel.addEventListener('click', () => controller?.abort());
