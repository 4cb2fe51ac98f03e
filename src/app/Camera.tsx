import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { CameraIdle } from './CameraIdle.tsx';
import { enCamera } from './i18n/en-camera.ts';
import { addEnglish, t } from './i18n/index.ts';

addEnglish(enCamera);

/** Continuous mode classifies at most this many frames a second (battery, and a cheap CPU's pace). */
const MAX_FPS = 2;

interface Props {
  /** Classifies one frame; resolves when done, so continuous mode knows when it may send another. */
  onFrame: (frame: ImageBitmap) => Promise<unknown>;
  /** Asks for the camera on mount: the tap that loaded this code was the user's "start". */
  startNow?: boolean;
}

/** The current frame as pixels for the worker: no JPEG encode here and decode there. */
function grab(video: HTMLVideoElement): Promise<ImageBitmap | null> {
  if (!video.videoWidth) return Promise.resolve(null);
  return createImageBitmap(video);
}

/**
 * Camera with a shutter and a continuous mode. Continuous mode samples on a bounded timer and
 * drops a frame when the previous one is still being classified (never queues: a queue only
 * grows on a slow phone and shows stale answers). The stream stops when the page is hidden,
 * when the view is scrolled out of sight in continuous mode, or on unmount.
 */
export function Camera({ onFrame, startNow = false }: Props) {
  const [stream, setStream] = useState<MediaStream | null>(null);
  const [continuous, setContinuous] = useState(false);
  const [error, setError] = useState('');
  const [counts, setCounts] = useState({ sent: 0, dropped: 0 });
  const video = useRef<HTMLVideoElement>(null);
  const busy = useRef(false);
  // The timer outlives renders; read the latest handler (the selected model may change).
  const handler = useRef(onFrame);
  handler.current = onFrame;
  const inView = useRef(true);

  // Attached before the browser paints the <video> that `stream` brings: the preview never shows
  // empty, and the view never says live (data-live) without the stream in it.
  useLayoutEffect(() => {
    if (video.current) video.current.srcObject = stream;
    return () => stream?.getTracks().forEach((track) => track.stop());
  }, [stream]);

  // A hidden page must not keep the camera (and its LED, and the battery) running.
  useEffect(() => {
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') {
        setStream(null);
        setContinuous(false);
      }
    };
    document.addEventListener('visibilitychange', onVisibility);
    return () => document.removeEventListener('visibilitychange', onVisibility);
  }, []);

  useEffect(() => {
    const el = video.current;
    if (!el || typeof IntersectionObserver === 'undefined') return undefined;
    const observer = new IntersectionObserver(([entry]) => {
      inView.current = entry?.isIntersecting ?? true;
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [stream]);

  const send = async () => {
    const v = video.current;
    if (!v) return;
    if (busy.current) {
      setCounts((c) => ({ ...c, dropped: c.dropped + 1 }));
      return;
    }
    busy.current = true;
    try {
      const frame = await grab(v);
      if (!frame) return;
      setCounts((c) => ({ ...c, sent: c.sent + 1 }));
      // The worker received a copy: this one's pixels are freed as soon as it has answered.
      await handler.current(frame).finally(() => frame.close());
    } finally {
      busy.current = false;
    }
  };

  useEffect(() => {
    if (!continuous || !stream) return undefined;
    const timer = setInterval(() => {
      if (inView.current) void send();
    }, 1000 / MAX_FPS);
    return () => clearInterval(timer);
  }, [continuous, stream]);

  const start = async () => {
    setError('');
    try {
      setStream(await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false }));
    } catch {
      setError(t('classify.image.cameraUnavailable'));
    }
  };
  const stop = () => {
    setContinuous(false);
    setStream(null);
  };
  useEffect(() => {
    if (startNow) void start();
  }, []);

  return (
    <div class="camera" data-testid="camera" data-live={String(Boolean(stream))} data-sent={counts.sent} data-dropped={counts.dropped}>
      {stream ? (
        <>
          <video ref={video} autoplay playsInline muted aria-label={t('camera.preview')} data-testid="camera-video" />
          <div class="camera-controls">
            <button type="button" class="shutter" data-testid="shutter" onClick={() => void send()}>{t('camera.shutter')}</button>
            <button type="button" data-testid="continuous" aria-pressed={continuous} onClick={() => setContinuous(!continuous)}>
              {continuous ? t('camera.continuousStop') : t('camera.continuous')}
            </button>
            <button type="button" class="link" data-testid="camera-stop" onClick={stop}>{t('camera.stop')}</button>
          </div>
          {continuous && <p class="hint">{t('camera.continuousHint', { fps: MAX_FPS })}</p>}
        </>
      ) : (
        <CameraIdle onStart={() => void start()} error={error} />
      )}
    </div>
  );
}
