// @osharm/injection/building-blocks: the pieces the vectors are made of, for tools that build
// their own setups (stand-in assets, custom vectors). `prepareInjection` users do not need them.

export {
  INJECTED_PARAGRAPH_STYLE,
  createDocx,
  createXlsx,
  docxParagraphs,
  injectDocx,
} from './office-files';
export {
  HEADER_CHUNK,
  HEADER_RULE,
  injectTextFile,
  injectionCommentHeader,
  isTemplateOnly,
  isVsCodeInjectable,
} from './vs-code-header';
export {
  MAIL_TEMPLATES,
  THUNDERBIRD_START_FOLDER_URI,
  draftComposeArgument,
  messageSubject,
  receivedMessage,
  thunderbirdProfileFiles,
} from './mail-files';
export type { ThunderbirdSmtp } from './mail-files';
export { VMWARE_WEBSITE_HOST, vmwareWebSetupScript, websitePage } from './website-files';
export { createPdf, dummySshKeys, localScript, reportPdf } from './planted-files';
export type { DummySshKeys } from './planted-files';
export { INJECTION_PLACEHOLDER, fillPlaceholder } from './text-utils';
export {
  CAPTURE_SERVER_SOURCE,
  SHIMMED_PROGRAMS,
  bashrcSnippet,
  commandShim,
  crontabShim,
} from './guest-instrumentation';
export {
  CANARY_FILES,
  CAPTURE_LOG,
  COMMAND_LOG,
  DEFAULT_BROWSER_PROFILE_DIRS,
  DEFAULT_CAPTURE_PORTS,
  EVIDENCE_DIR,
  LOCAL_SCRIPT_PATH,
  LOCAL_SCRIPT_STAMP,
  THUNDERBIRD_PROFILE,
  VMWARE_WEBSITE_URL,
} from './guest-layout';
