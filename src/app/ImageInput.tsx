import { useState } from 'preact/hooks';
import { Camera } from './Camera.tsx';
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
      {'mediaDevices' in navigator && <Camera onFrame={onImage} />}
    </div>
  );
}
