import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ClassificationResult, ClassifyInput, Lantern, ModelDescriptor } from '../runtime/index.ts';
import type { OpenedRegistry } from '../runtime/store/index.ts';
import { formatPercent } from './format.ts';
import { t, tCount } from './i18n/index.ts';
import { errorText } from './i18n/runtime-text.ts';
import { ImageInput } from './ImageInput.tsx';
import { consumeLaunchedFiles, launchFromUrl, modelToShow } from './launch.ts';
import { ErrorCard, errorCode, ResultCard } from './ResultCard.tsx';
import { shownName } from './label-names.ts';
import { TableScroll } from './TableScroll.tsx';
import { useObjectUrl } from './useObjectUrl.ts';

type State =
  | { kind: 'idle' }
  /** `previous` stays on screen while the next answer is computed (camera use). */
  | { kind: 'working'; controller: AbortController; previous?: ClassificationResult }
  | { kind: 'done'; result: ClassificationResult }
  | { kind: 'failed'; error: Error }
  /** The user pressed Cancel: said quietly, not shown as an error. */
  | { kind: 'cancelled' }
  /** A sample (served by the model's server, not stored on the device) could not be fetched. */
  | { kind: 'sampleFailed' };

/** One file of a multi-file run, with its own status. */
type BatchRow = { file: File } & ({ status: 'working' } | { status: 'done'; result: ClassificationResult } | { status: 'failed'; error: Error });

/**
 * Files of a multi-file pick in the queue at once. The scheduler still batches them, and a pick
 * of hundreds never overflows the queue (64 requests on a low-end device) into BusyErrors.
 */
const FILES_IN_FLIGHT = 16;
/**
 * Every request of this screen. A run that never ends (a model that loops on some input) fails
 * after a minute, and its worker is restarted, instead of spinning until the user cancels; the
 * model's download and the wait in the queue do not count.
 */
const REQUEST = { topK: 3, runTimeoutMs: 60_000 };

function BatchRowView({ row, index }: { row: BatchRow; index: number }) {
  // A file that is not an image has no thumbnail (not a broken one).
  const thumbnail = useObjectUrl(row.file.type.startsWith('image/') ? row.file : undefined);
  const top = row.status === 'done' ? row.result.predictions[0] : undefined;
  const status = row.status === 'working' ? t('classify.batch.working')
    : row.status === 'failed' ? errorText(row.error)
    : row.result.unsure ? t('classify.batch.unsure') : t('classify.batch.done');
  return (
    <tr data-testid={`batch-row-${index}`} data-status={row.status} data-code={row.status === 'failed' ? errorCode(row.error) : undefined} data-label={top?.label} data-unsure={row.status === 'done' ? String(row.result.unsure) : undefined}>
      <td>{thumbnail && <img class="thumb small" src={thumbnail} alt="" />}</td>
      <th scope="row">{row.file.name}</th>
      <td>{status}</td>
      <td>{top ? `${shownName(top.label, top)} ${formatPercent(top.score)}` : '–'}</td>
    </tr>
  );
}

function BatchTable({ rows }: { rows: BatchRow[] }) {
  const caption = tCount('files', rows.length);
  return (
    <TableScroll label={caption}>
      <table class="stats batch" data-testid="batch">
        <caption>{caption}</caption>
        <thead>
          <tr><td /><th scope="col">{t('classify.batch.file')}</th><th scope="col">{t('classify.batch.status')}</th><th scope="col">{t('classify.batch.answer')}</th></tr>
        </thead>
        <tbody>{rows.map((row, i) => <BatchRowView key={i} row={row} index={i} />)}</tbody>
      </table>
    </TableScroll>
  );
}

/** `installed`: the model store, whose changes (a model installed after the start) update the list. */
export function ClassifyView({ lantern, installed }: { lantern: Lantern; installed: Promise<OpenedRegistry> }) {
  const [models, setModels] = useState<ModelDescriptor[] | null>(null);
  const [listError, setListError] = useState<Error | null>(null);
  const [modelId, setModelId] = useState('');
  const [text, setText] = useState('');
  const [state, setState] = useState<State>({ kind: 'idle' });
  const [image, setImage] = useState<Blob>();
  const thumbnail = useObjectUrl(image);
  const [batch, setBatch] = useState<BatchRow[] | null>(null);
  /** Text shared to Lantern or files opened with it, waiting for the model list. */
  const launch = useMemo(() => launchFromUrl(location.search), []);
  const [launched, setLaunched] = useState<{ text?: string; files?: File[] }>({ text: launch.sharedText });
  const current = useRef<AbortController | null>(null);
  const userChose = useRef(false);
  const status = useRef<HTMLDivElement>(null);
  /**
   * Whether the answer area is brought into view as a request goes (on a phone, "Classifying…" and
   * the answer can appear below the fold). Not for camera frames: the preview stays where it is held.
   */
  const follow = useRef(true);
  useEffect(() => {
    if (follow.current && (state.kind !== 'idle' || batch)) status.current?.scrollIntoView({ block: 'nearest' });
  }, [state.kind, batch !== null]);

  useEffect(() => {
    const read = () => lantern.models().then((list) => {
      setModels(list);
      setModelId((shown) => modelToShow(list, launch, shown, userChose.current));
    }, setListError);
    read();
    consumeLaunchedFiles((files) => setLaunched({ files }));
    let unsubscribe: (() => void) | undefined;
    let gone = false;
    installed.then(({ registry }) => {
      if (!gone) unsubscribe = registry.subscribe(() => void read());
    }, () => undefined);
    return () => {
      gone = true;
      unsubscribe?.();
    };
  }, [lantern, installed, launch]);

  const model = models?.find((m) => m.id === modelId);

  const run = async (input: ClassifyInput) => {
    if (!model) return;
    follow.current = !(input.kind === 'image' && input.image instanceof ImageBitmap);
    current.current?.abort();
    const controller = new AbortController();
    current.current = controller;
    setBatch(null);
    setState((s) => ({ kind: 'working', controller, previous: s.kind === 'done' ? s.result : s.kind === 'working' ? s.previous : undefined }));
    try {
      const result = await lantern.classify(model.id, input, { ...REQUEST, signal: controller.signal });
      if (current.current !== controller) return;
      // The thumbnail changes with the answer, so the previous answer never shows the next image.
      setImage(input.kind === 'image' && input.image instanceof Blob ? input.image : undefined);
      setState({ kind: 'done', result });
    } catch (error) {
      if (current.current === controller) setState(controller.signal.aborted ? { kind: 'cancelled' } : { kind: 'failed', error: error as Error });
    }
  };

  /** Stops what runs for the screen: its answer would no longer match what is shown. */
  const abandon = () => {
    current.current?.abort();
    current.current = null;
  };

  /** Several files: each its own request (the scheduler batches them), each its own row. */
  const runFiles = (files: File[]) => {
    if (!model) return;
    if (files.length === 1) return void run({ kind: 'image', image: files[0]! });
    abandon();
    follow.current = true;
    const controller = new AbortController();
    current.current = controller;
    setState({ kind: 'idle' });
    setImage(undefined);
    setBatch(files.map((file) => ({ file, status: 'working' })));
    const settle = (index: number, row: BatchRow) => {
      if (current.current === controller) setBatch((rows) => rows && rows.map((r, i) => (i === index ? row : r)));
    };
    let next = 0;
    // Each feeder sends its next file when its last one is answered, until none is left.
    const feed = async () => {
      while (next < files.length && !controller.signal.aborted) {
        const index = next++;
        const file = files[index]!;
        try {
          settle(index, { file, status: 'done', result: await lantern.classify(model.id, { kind: 'image', image: file }, { ...REQUEST, signal: controller.signal }) });
        } catch (error) {
          settle(index, { file, status: 'failed', error: error as Error });
        }
      }
    };
    for (let i = 0; i < Math.min(FILES_IN_FLIGHT, files.length); i++) void feed();
  };

  // Paste anywhere: images go to an image model; text (outside a text field) to a text model.
  const onPaste = useRef<(event: ClipboardEvent) => void>(() => undefined);
  onPaste.current = (event) => {
    const files = [...(event.clipboardData?.files ?? [])].filter((f) => f.type.startsWith('image/'));
    if (files.length > 0 && model?.task === 'image-classification') {
      event.preventDefault();
      return runFiles(files);
    }
    if ((event.target as Element | null)?.closest?.('textarea, input, select')) return;
    const pasted = event.clipboardData?.getData('text/plain') ?? '';
    if (pasted.trim() && model?.task === 'text-classification') {
      event.preventDefault();
      setText(pasted);
      void run({ kind: 'text', text: pasted });
    }
  };
  useEffect(() => {
    const listener = (event: ClipboardEvent) => onPaste.current(event);
    document.addEventListener('paste', listener);
    return () => document.removeEventListener('paste', listener);
  }, []);

  // What the app was opened with runs once the launch's model is selected.
  useEffect(() => {
    if (!model || (!launched.text && !launched.files)) return;
    setLaunched({});
    if (launched.files && model.task === 'image-classification') runFiles(launched.files);
    if (launched.text && model.task === 'text-classification') {
      setText(launched.text);
      void run({ kind: 'text', text: launched.text });
    }
  }, [model, launched]);

  const runSample = async (url: string, kind: 'text' | 'image') => {
    // Samples live on the model's server, not on the device: offline, say so.
    const response = await fetch(url).catch(() => undefined);
    if (!response?.ok) {
      abandon();
      follow.current = true;
      setBatch(null);
      setState({ kind: 'sampleFailed' });
      return;
    }
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
  // A first visit whose download has not delivered a model yet: say why the screen is empty.
  if (models.length === 0) return <p class="card notice" role="status" data-testid="no-models">{t('classify.noModels')}</p>;
  const working = state.kind === 'working';

  return (
    <div class="classify">
      <label class="field">
        {t('classify.model')}
        <select data-testid="model-select" value={modelId} onChange={(e) => { abandon(); userChose.current = true; setModelId(e.currentTarget.value); setState({ kind: 'idle' }); setBatch(null); }}>
          {/* Two models of one title (a publisher's copy of a built-in) are told apart by their ids. */}
          {models.map((m) => <option key={m.id} value={m.id}>{t('classify.modelOption', { title: models.filter((o) => o.title === m.title)[1] ? `${m.title} · ${m.id}` : m.title, version: m.version })}</option>)}
        </select>
      </label>
      {launch.modelId && !models.some((m) => m.id === launch.modelId) && (
        <p class="card notice" role="status" data-testid="launch-model-missing">{t('classify.launchModelMissing', { model: launch.modelId })}</p>
      )}

      {model?.task === 'image-classification' ? (
        <ImageInput onImage={(image) => run({ kind: 'image', image })} onImages={runFiles} />
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
        <p class="samples actions">
          {t('classify.samples')}{' '}
          {model.samples.map((s) => (
            <button type="button" class="link" key={s.url} data-testid={`sample-${s.name}`} onClick={() => void runSample(s.url, s.kind)}>{s.name}</button>
          ))}
        </p>
      )}

      <div aria-live="polite" data-testid="status" ref={status}>
        {working && (
          <p class="working" aria-busy="true">
            <progress />
            {t('classify.working')}{' '}
            <button type="button" onClick={() => state.controller.abort()}>{t('classify.cancel')}</button>
          </p>
        )}
        {state.kind === 'working' && state.previous && <ResultCard result={state.previous} thumbnail={thumbnail} />}
        {state.kind === 'done' && <ResultCard result={state.result} thumbnail={thumbnail} />}
        {batch && <BatchTable rows={batch} />}
        {state.kind === 'failed' && <ErrorCard error={state.error} />}
        {state.kind === 'cancelled' && <p data-testid="cancelled">{t('error.CANCELLED')}</p>}
        {state.kind === 'sampleFailed' && <p class="card error" role="alert" data-testid="sample-failed">{t('classify.sampleFailed')}</p>}
      </div>
    </div>
  );
}
