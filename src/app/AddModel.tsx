import { useState } from 'preact/hooks';
import { catalogAddress, type SavedCatalogs, type ModelRegistry } from '../runtime/store/index.ts';
import { t } from './i18n/index.ts';
import { catalogErrorText } from './i18n/models-text.ts';
import { errorCode, ErrorMessage } from './ResultCard.tsx';

/**
 * Whether the user typed a whole http(s) address. One without its scheme
 * ("models.example.org/catalog.json") would resolve against Lantern's own origin and fail
 * with a 404 that blames the publisher, so the form refuses it before fetching anything.
 */
function isFullAddress(input: string): boolean {
  try {
    return ['https:', 'http:'].includes(new URL(input.trim()).protocol);
  } catch {
    return false;
  }
}

/**
 * "Add a model": a publisher's catalog URL. It is read once (the registry checks the origin
 * against the deployment's allowed origins), then saved; its releases join "Available models"
 * and later update checks. Bundle files are sideloaded with "Load bundle file".
 */
export function AddModel({ registry, saved, onAdded }: { registry: ModelRegistry; saved: SavedCatalogs; onAdded: () => void }) {
  const [url, setUrl] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const [incomplete, setIncomplete] = useState(false);
  const [busy, setBusy] = useState(false);

  const add = async () => {
    setError(null);
    const full = isFullAddress(url);
    setIncomplete(!full);
    if (!full) return;
    setBusy(true);
    try {
      const href = catalogAddress(url, document.baseURI);
      await registry.catalog(href);
      saved.add(href);
      setUrl('');
      onAdded();
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card add-model" data-testid="add-model">
      <h2>{t('models.add.title')}</h2>
      <form class="actions" noValidate onSubmit={(e) => { e.preventDefault(); void add(); }}>
        <label>
          {t('models.add.catalogUrl')}{' '}
          <input
            type="url"
            data-testid="catalog-url"
            value={url}
            placeholder="https://models.example.org/catalog.json"
            aria-invalid={incomplete || Boolean(error)}
            aria-describedby="add-model-error"
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </label>
        <button type="submit" data-testid="add-catalog" disabled={busy}>{t('models.add.submit')}</button>
      </form>
      <p class="hint">{t('models.add.hint')}</p>
      <div id="add-model-error" role="alert">
        {incomplete && <p class="error" data-testid="add-model-error" data-code="address">{t('models.add.fullAddress')}</p>}
        {error && (
          <div class="error" data-testid="add-model-error" data-code={errorCode(error)}>
            <ErrorMessage text={catalogErrorText(error)} error={error} />
          </div>
        )}
      </div>
    </section>
  );
}
