import { t } from './i18n/index.ts';

/** The camera's start button and why it could not start: what shows before the camera is live. */
export function CameraIdle({ onStart, error }: { onStart: () => void; error: string }) {
  return (
    <>
      <button type="button" data-testid="camera-start" onClick={onStart}>{t('classify.image.camera')}</button>
      {error && <p class="hint" role="status">{error}</p>}
    </>
  );
}
