import { FormData } from 'undici';
import { isDirectoryTree, parseJsonObject, posixBasename } from './guest-answers';
import type { DirectoryTree, GuestCallOptions } from './guest-client';
import { type CallSpec, InvalidAnswer } from './guest-transport';

// File and window calls: get / upload / list files, open a file, activate / close a window, wallpaper.

export function getFileCall(path: string): CallSpec<Buffer | null> {
  return {
    operation: 'getFile',
    method: 'POST',
    path: '/file',
    body: { kind: 'form', value: { file_path: path } },
    idempotent: true,
    acceptStatus: status => status === 404,
    parse: ({ status, body }) => (status === 404 ? null : body),
  };
}

export function uploadFileCall(path: string, data: Uint8Array): CallSpec<void> {
  const form = new FormData();
  form.append('file_path', path);
  // the guest saves to `file_path`; the part's file name is the basename, as upstream sends it
  form.append('file_data', new Blob([data as Uint8Array<ArrayBuffer>]), posixBasename(path));
  return {
    operation: 'uploadFile',
    method: 'POST',
    path: '/setup/upload',
    body: { kind: 'multipart', value: form },
    idempotent: false,
    parse: () => undefined,
  };
}

export function listDirectoryCall(path: string): CallSpec<DirectoryTree> {
  return {
    operation: 'listDirectory',
    method: 'POST',
    path: '/list_directory',
    body: { kind: 'json', value: { path } },
    idempotent: true,
    parse: answer => {
      const tree = parseJsonObject(answer).directory_tree;
      if (!isDirectoryTree(tree)) throw new InvalidAnswer('"directory_tree" is not a tree');
      return tree;
    },
  };
}

export function openFileCall(path: string): CallSpec<void> {
  return {
    operation: 'openFile',
    method: 'POST',
    path: '/setup/open_file',
    body: { kind: 'json', value: { path } },
    idempotent: false,
    parse: () => undefined,
  };
}

export function changeWallpaperCall(path: string): CallSpec<void> {
  return {
    operation: 'changeWallpaper',
    method: 'POST',
    path: '/setup/change_wallpaper',
    body: { kind: 'json', value: { path } },
    idempotent: false,
    parse: () => undefined,
  };
}

/** `/setup/activate_window` and `/setup/close_window`. */
export function windowCall(
  operation: 'activateWindow' | 'closeWindow',
  windowName: string,
  options?: GuestCallOptions & { strict?: boolean; byClass?: boolean },
): CallSpec<void> {
  return {
    operation,
    method: 'POST',
    path: operation === 'activateWindow' ? '/setup/activate_window' : '/setup/close_window',
    body: {
      kind: 'json',
      value: {
        window_name: windowName,
        strict: options?.strict ?? false,
        by_class: options?.byClass ?? false,
      },
    },
    idempotent: false,
    parse: () => undefined,
  };
}
