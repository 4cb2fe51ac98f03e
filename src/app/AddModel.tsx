import { useState } from 'preact/hooks';
import { catalogAddress, type SavedCatalogs, type ModelRegistry } from '../runtime/store/index.ts';
import { t } from './i18n/index.ts';

/**
 * "Add a model": a publisher's catalog URL. It is read once (the registry checks the origin
 * against the deployment's allowed origins), then saved; its releases join "Available models"
 * and later update checks. Bundle files are sideloaded with "Load bundle file".
 */
export function AddModel({ registry, saved, onAdded }: { registry: ModelRegistry; saved: SavedCatalogs; onAdded: () => void }) {
  const [url, setUrl] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);

  const add = async () => {
    setError(null);
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
          <input type="url" data-testid="catalog-url" value={url} placeholder="https://models.example.org/catalog.json" onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
        <button type="submit" data-testid="add-catalog" disabled={busy}>{t('models.add.submit')}</button>
      </form>
      <p class="hint">{t('models.add.hint')}</p>
      {error && <p class="error" role="alert" data-testid="add-model-error" data-code={'code' in error ? String(error.code) : 'INTERNAL'}>{error.message}</p>}
    </section>
  );
}
