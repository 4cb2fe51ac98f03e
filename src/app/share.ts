/**
 * Hands something to another app or device through the Web Share sheet where the browser has
 * one (phones, some desktops), with a fallback that always works. A user closing the share sheet
 * is not a failure to fall back from. Files (the Models screen's) are in share-file.ts, apart:
 * this module comes with the first screen.
 */
export const isAbort = (error: unknown) => error instanceof DOMException && error.name === 'AbortError';

/** A result's text: shared, else copied to the clipboard. Says which, so the button can confirm it. */
export async function shareText(title: string, text: string, nav: Navigator = navigator): Promise<'shared' | 'copied'> {
  const data = { title, text };
  if (typeof nav.share === 'function' && (nav.canShare?.(data) ?? true)) {
    try {
      await nav.share(data);
      return 'shared';
    } catch (error) {
      if (isAbort(error)) throw error;
    }
  }
  await nav.clipboard.writeText(text);
  return 'copied';
}
