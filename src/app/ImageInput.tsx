import { useState } from 'preact/hooks';
import { CameraIdle } from './CameraIdle.tsx';
import { t } from './i18n/index.ts';

interface Props {
  /** Classifies the image; resolves when done (continuous camera mode paces itself on it). */
  onImage: (image: Blob | ImageBitmap) => Promise<unknown>;
  /** Several files at once (picker, drop or paste). */
  onImages: (files: File[]) => void;
}

/** File picker (several files) and drag and drop (Blobs), and camera capture (an ImageBitmap of the frame). */
export function ImageInput({ onImage, onImages }: Props) {
  const [dragging, setDragging] = useState(false);
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length > 0) onImages(files);
  };

  return (
    <div class="image-input">
      <div
        class={`dropzone${dragging ? ' dragging' : ''}`}
        data-testid="dropzone"
        onDragOver={(e) => { e.preventDefault(); setDragging(true); }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <label class="button">
          {t('classify.image.pick')}
          <input
            type="file"
            accept="image/*"
            multiple
            data-testid="image-file"
            onChange={(e) => {
              const input = e.currentTarget;
              const files = [...(input.files ?? [])];
              if (files.length > 0) onImages(files);
              input.value = '';
            }}
          />
        </label>
        <span class="drop-hint" data-testid="drop-hint">{t('classify.image.dropOrPaste')}</span>
      </div>
      {'mediaDevices' in navigator && <CameraOnTap onFrame={onImage} />}
    </div>
  );
}

type CameraModule = typeof import('./Camera.tsx');

/**
 * The camera's start button; the camera's own code (preview, shutter, continuous mode) loads on
 * the first tap, since none of it is on screen before (the first screen's JavaScript budget,
 * e2e/serving.spec.ts). Offline it comes from the service worker's precache.
 */
function CameraOnTap({ onFrame }: { onFrame: (frame: ImageBitmap) => Promise<unknown> }) {
  const [loaded, setLoaded] = useState<CameraModule>();
  const [error, setError] = useState('');
  if (loaded) return <loaded.Camera onFrame={onFrame} startNow />;
  const load = () => {
    setError('');
    import('./Camera.tsx').then(setLoaded, () => setError(t('classify.image.cameraUnavailable')));
  };
  return (
    <div class="camera" data-testid="camera" data-live="false">
      <CameraIdle onStart={load} error={error} />
    </div>
  );
}
