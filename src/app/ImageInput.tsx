import { useState } from 'preact/hooks';
import { Camera } from './Camera.tsx';
import { t } from './i18n/index.ts';

interface Props {
  /** Classifies the image; resolves when done (continuous camera mode paces itself on it). */
  onImage: (image: Blob | ImageBitmap) => Promise<unknown>;
  disabled: boolean;
}

/** File picker and drag and drop (a Blob), and camera capture (an ImageBitmap of the frame). */
export function ImageInput({ onImage, disabled }: Props) {
  const [dragging, setDragging] = useState(false);
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer?.files[0];
    if (file) void onImage(file);
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
            data-testid="image-file"
            disabled={disabled}
            onChange={(e) => {
              const input = e.currentTarget;
              const file = input.files?.[0];
              if (file) void onImage(file);
              input.value = '';
            }}
          />
        </label>
        <span>{t('classify.image.drop')}</span>
      </div>
      {'mediaDevices' in navigator && <Camera onFrame={onImage} disabled={disabled} />}
    </div>
  );
}
