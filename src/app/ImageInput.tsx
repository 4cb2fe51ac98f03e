import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from './i18n/index.ts';

interface Props {
  onImage: (image: Blob) => void;
  disabled: boolean;
}

/** File picker, drag and drop, and camera capture; all produce a Blob. */
export function ImageInput({ onImage, disabled }: Props) {
  const [dragging, setDragging] = useState(false);
  const [stream, setStream] = useState<MediaStream | null>(null);
  const [cameraError, setCameraError] = useState('');
  const video = useRef<HTMLVideoElement>(null);

  useEffect(() => {
    if (video.current) video.current.srcObject = stream;
    // Stop the camera when the view goes away: it drains the battery.
    return () => stream?.getTracks().forEach((track) => track.stop());
  }, [stream]);

  const startCamera = async () => {
    setCameraError('');
    try {
      setStream(await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false }));
    } catch {
      setCameraError(t('classify.image.cameraUnavailable'));
    }
  };

  const shoot = () => {
    const v = video.current;
    if (!v || !v.videoWidth) return;
    const canvas = document.createElement('canvas');
    canvas.width = v.videoWidth;
    canvas.height = v.videoHeight;
    canvas.getContext('2d')?.drawImage(v, 0, 0);
    canvas.toBlob((blob) => blob && onImage(blob), 'image/jpeg', 0.92);
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer?.files[0];
    if (file) onImage(file);
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
              if (file) onImage(file);
              input.value = '';
            }}
          />
        </label>
        <span>{t('classify.image.drop')}</span>
      </div>
      {'mediaDevices' in navigator && (
        <div class="camera">
          {stream ? (
            <>
              <video ref={video} autoplay playsInline muted aria-label={t('classify.image.camera')} />
              <button type="button" onClick={shoot} disabled={disabled}>{t('classify.image.shutter')}</button>
              <button type="button" onClick={() => setStream(null)}>{t('classify.image.cameraStop')}</button>
            </>
          ) : (
            <button type="button" onClick={startCamera}>{t('classify.image.camera')}</button>
          )}
          {cameraError && <p class="hint">{cameraError}</p>}
        </div>
      )}
    </div>
  );
}
