import { useEffect, useState } from 'preact/hooks';
import type { Lantern, ModelDescriptor } from '../runtime/index.ts';
import type { OpenedRegistry } from '../runtime/store/index.ts';

/**
 * The models `lantern` runs, read again whenever the model store changes (an install, an
 * activation, a rollback, a removal). `models` is null until the first read; `error` says why
 * the last read failed. The screens loaded later use it; ClassifyView reads the list itself
 * (choosing the model to show in the same callback), as this hook in the first download would
 * cost the start chunk ~50 bytes its budget does not have.
 */
export function useInstalledModels(lantern: Lantern, installed: Promise<OpenedRegistry>): { models: ModelDescriptor[] | null; error: Error | null } {
  const [list, setList] = useState<{ models: ModelDescriptor[] | null; error: Error | null }>({ models: null, error: null });
  useEffect(() => {
    let gone = false;
    let unsubscribe: (() => void) | undefined;
    const read = () => void lantern.models().then(
      (models) => !gone && setList({ models, error: null }),
      (error: Error) => !gone && setList((shown) => ({ ...shown, error })),
    );
    read();
    installed.then(({ registry }) => {
      if (!gone) unsubscribe = registry.subscribe(read);
    }, () => undefined);
    return () => {
      gone = true;
      unsubscribe?.();
    };
  }, [lantern, installed]);
  return list;
}
