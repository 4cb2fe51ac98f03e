/**
 * The camera's English messages. They come with its code (Camera.tsx adds them with addEnglish),
 * which loads when the camera is started, not with the first download.
 */
export const enCamera = {
  'camera.stop': 'Stop camera',
  'camera.shutter': 'Take photo',
  'camera.continuous': 'Classify continuously',
  'camera.continuousStop': 'Stop continuous',
  'camera.preview': 'Camera preview',
  'camera.continuousHint': 'Classifying up to {fps} frames a second; frames are skipped while one is still being classified.',
} as const;
