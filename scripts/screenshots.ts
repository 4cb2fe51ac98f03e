/**
 * The web app manifest's screenshots (shown by install dialogs): one list for the manifest
 * (vite.config.ts) and for the e2e test that captures and checks them (e2e/screenshots.spec.ts).
 * Each is the Classify screen after classifying a built-in sample, at a phone and a desktop size.
 */
export interface Screenshot {
  file: string;
  width: number;
  height: number;
  formFactor: 'narrow' | 'wide';
  label: string;
  /** What is on screen: a built-in model and one of its samples. */
  model: string;
  sample: string;
}

export const SCREENSHOTS: readonly Screenshot[] = [
  { file: 'classify-narrow.png', width: 412, height: 915, formFactor: 'narrow', label: 'A document photo classified on the phone, offline', model: 'doc-orientation', sample: 'upside-down' },
  { file: 'classify-wide.png', width: 1280, height: 800, formFactor: 'wide', label: 'A mail classified as spam, with the model version and timings', model: 'spam-filter', sample: 'spam' },
];
