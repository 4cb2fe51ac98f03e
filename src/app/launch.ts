import type { ModelDescriptor } from '../runtime/index.ts';
import { takeSharedFiles, type SharedStorage } from '../share-target.ts';

/**
 * How the app was opened, from the web app manifest's entry points: a shortcut or the file
 * handler (`?task=image-classification`), a link naming a model (`?model=`), or the share
 * target, whose service-worker end (src/share-target.ts) redirects here with shared text and
 * links (`?text=`, `&title=`, `&url=`) or the id of shared images (`?shared=`).
 */
export interface Launch {
  task?: ModelDescriptor['task'];
  modelId?: string;
  /** Text shared to Lantern; classified with the first text model. */
  sharedText?: string;
  /** Images shared to Lantern wait in Cache Storage under this id; classified with the first image model. */
  sharedFiles?: string;
}

export function launchFromUrl(search: string): Launch {
  const params = new URLSearchParams(search);
  const task = params.get('task');
  // Share sheets fill some of title/text/url, and put links in `text` or `url` as they like.
  const shared = ['title', 'text', 'url'].map((name) => params.get(name)?.trim()).filter(Boolean).join('\n');
  return {
    ...(task === 'image-classification' || task === 'text-classification' ? { task } : {}),
    ...(params.get('model') ? { modelId: params.get('model')! } : {}),
    ...(shared ? { sharedText: shared, task: 'text-classification' as const } : {}),
    ...(params.get('shared') ? { sharedFiles: params.get('shared')!, task: 'image-classification' as const } : {}),
  };
}

/** The model a launch asks for: by id, else the first of its task, else the first. */
export function launchModel(models: ModelDescriptor[], launch: Launch): ModelDescriptor | undefined {
  return models.find((m) => m.id === launch.modelId) ?? models.find((m) => m.task === launch.task) ?? models[0];
}

/**
 * The model to show when the list changes. The user's own choice stays while it is installed.
 * Until the user chooses, a model the launch named by id is taken as soon as it is installed:
 * on a first visit a link's model may arrive after another one is already shown.
 */
export function modelToShow(models: ModelDescriptor[], launch: Launch, shown: string, userChose: boolean): string {
  const named = models.find((m) => m.id === launch.modelId);
  if (named && !userChose) return named.id;
  if (models.some((m) => m.id === shown)) return shown;
  return launchModel(models, launch)?.id ?? '';
}

/** Chromium's File Handling API: files the OS opened "with Lantern". */
interface LaunchParams { files: { getFile(): Promise<File> }[] }
interface LaunchQueue { setConsumer(consumer: (params: LaunchParams) => void): void }

interface LaunchWindow { launchQueue?: LaunchQueue; location: { search: string }; caches: SharedStorage }

/**
 * Calls `onFiles` with the image files the app was launched with: opened with Lantern
 * (installed app, Chromium) or shared to it (taken out of the share's cache, which empties it).
 */
export function consumeLaunchedFiles(onFiles: (files: File[]) => void, win: LaunchWindow = window as Window & LaunchWindow): void {
  win.launchQueue?.setConsumer(async (params) => {
    const files = await Promise.all(params.files.map((handle) => handle.getFile()));
    if (files.length > 0) onFiles(files);
  });
  const shared = launchFromUrl(win.location.search).sharedFiles;
  if (shared) {
    void takeSharedFiles(shared, win.caches).then((files) => {
      if (files.length > 0) onFiles(files);
    });
  }
}
