import { useEffect, useRef, useState } from 'preact/hooks';
import type { ClassificationResult, ClassifyInput, Lantern, ModelDescriptor } from '../runtime/index.ts';
import { t } from './i18n/index.ts';
import { ImageInput } from './ImageInput.tsx';
import { ErrorCard, ResultCard } from './ResultCard.tsx';

type State =
  | { kind: 'idle' }
  /** `previous` stays on screen while the next answer is computed (camera use). */
  | { kind: 'working'; controller: AbortController; previous?: ClassificationResult }
  | { kind: 'done'; result: ClassificationResult }
  | { kind: 'failed'; error: Error };

export function ClassifyView({ lantern }: { lantern: Lantern }) {
  const [models, setModels] = useState<ModelDescriptor[] | null>(null);
  const [listError, setListError] = useState<Error | null>(null);
  const [modelId, setModelId] = useState('');
  const [text, setText] = useState('');
  const [state, setState] = useState<State>({ kind: 'idle' });
  const current = useRef<AbortController | null>(null);

  useEffect(() => {
    lantern.models().then((list) => {
      setModels(list);
      const wanted = new URLSearchParams(location.search).get('model');
      setModelId(list.find((m) => m.id === wanted)?.id ?? list[0]?.id ?? '');
    }, setListError);
  }, [lantern]);

  const model = models?.find((m) => m.id === modelId);

  const run = async (input: ClassifyInput) => {
    if (!model) return;
    current.current?.abort();
    const controller = new AbortController();
    current.current = controller;
    setState((s) => ({ kind: 'working', controller, previous: s.kind === 'done' ? s.result : s.kind === 'working' ? s.previous : undefined }));
    try {
      const result = await lantern.classify(model.id, input, { signal: controller.signal, topK: 3 });
      if (current.current === controller) setState({ kind: 'done', result });
    } catch (error) {
      if (current.current === controller) setState({ kind: 'failed', error: error as Error });
    }
  };

  const runSample = async (url: string, kind: 'text' | 'image') => {
    const response = await fetch(url);
    if (kind === 'text') {
      const sample = await response.text();
      setText(sample);
      await run({ kind: 'text', text: sample });
    } else {
      await run({ kind: 'image', image: await response.blob() });
    }
  };

  if (listError) return <ErrorCard error={listError} />;
  if (!models) return <p aria-busy="true">{t('classify.loadingModels')}</p>;
  const working = state.kind === 'working';

  return (
    <div class="classify">
      <label class="field">
        {t('classify.model')}
        <select data-testid="model-select" value={modelId} onChange={(e) => { setModelId(e.currentTarget.value); setState({ kind: 'idle' }); }}>
          {models.map((m) => <option key={m.id} value={m.id}>{t('classify.modelOption', { title: m.title, version: m.version })}</option>)}
        </select>
      </label>

      {model?.task === 'image-classification' ? (
        <ImageInput disabled={false} onImage={(image) => run({ kind: 'image', image })} />
      ) : (
        <form class="text-input" onSubmit={(e) => { e.preventDefault(); void run({ kind: 'text', text }); }}>
          <label class="field">
            {t('classify.text.label')}
            <textarea data-testid="text-input" rows={6} value={text} placeholder={t('classify.text.placeholder')} onInput={(e) => setText(e.currentTarget.value)} />
          </label>
          <button type="submit" data-testid="classify-text">{t('classify.text.submit')}</button>
        </form>
      )}

      {model && model.samples.length > 0 && (
        <p class="samples">
          {t('classify.samples')}{' '}
          {model.samples.map((s) => (
            <button type="button" class="link" key={s.url} data-testid={`sample-${s.name}`} onClick={() => void runSample(s.url, s.kind)}>{s.name}</button>
          ))}
        </p>
      )}

      <div aria-live="polite" data-testid="status">
        {working && (
          <p class="working" aria-busy="true">
            <progress />
            {t('classify.working')}{' '}
            <button type="button" onClick={() => state.controller.abort()}>{t('classify.cancel')}</button>
          </p>
        )}
        {state.kind === 'working' && state.previous && <ResultCard result={state.previous} />}
        {state.kind === 'done' && <ResultCard result={state.result} />}
        {state.kind === 'failed' && <ErrorCard error={state.error} />}
      </div>
    </div>
  );
}
