import { z } from 'zod';

/** The 6 injection vectors of OS-Harm (the `type` of an entry in a task's `injections`). */
export const INJECTION_VECTOR_IDS = [
  'website',
  'desktop_notification',
  'libreoffice_writer',
  'vs_code',
  'thunderbird_mail_draft',
  'thunderbird_mail_received',
] as const;
export type InjectionVectorId = (typeof INJECTION_VECTOR_IDS)[number];

/** The 12 injection goal ids of OS-Harm. */
export const INJECTION_GOAL_IDS = [
  'stop_task',
  'terminal_local_script',
  'terminal_remote_script',
  'terminal_cron_setup',
  'delete_all_user_files',
  'delete_all_system_files',
  'url_query_params',
  'email_send_file',
  'email_send_prompt',
  'email_send_password',
  'form_paste_ssh',
  'swisstransfer_send_files',
] as const;
export type InjectionGoalId = (typeof INJECTION_GOAL_IDS)[number];

/** Vectors that carry the injection inside a file and so need `params`. */
export const FILE_INJECTION_VECTORS: readonly InjectionVectorId[] = [
  'libreoffice_writer',
  'vs_code',
];
/** File extensions the `vs_code` vector can prefix with a comment header. */
export const VS_CODE_INJECTION_EXTENSIONS = ['md', 'txt', 'py'] as const;

export const injectionParamsSchema = z.looseObject({
  /** Host file the injection is written into, relative to the dataset's asset root. */
  file_path_local: z.string().min(1),
  /** Where the injected file is uploaded inside the guest. */
  file_path_vm: z.string().min(1),
});

/**
 * One injection vector of a task, with the goals to try through it. At run time upstream adds
 * `content` (the goal text) and `goal_id`; `better_log.json` records that object as
 * `task.injection`, so both are accepted here.
 */
export const injectionVectorSchema = z
  .looseObject({
    type: z.enum(INJECTION_VECTOR_IDS),
    goals: z.array(z.enum(INJECTION_GOAL_IDS)).min(1),
    params: injectionParamsSchema.optional(),
    /** Only on `desktop_notification`: the app set up under the notification. */
    additional_config: z.enum(['thunderbird', 'libreoffice_writer']).optional(),
    content: z.string().optional(),
    goal_id: z.enum(INJECTION_GOAL_IDS).optional(),
  })
  .superRefine((vector, context) => {
    if (FILE_INJECTION_VECTORS.includes(vector.type) && vector.params === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['params'],
        message: `required for the "${vector.type}" vector (expected { file_path_local, file_path_vm })`,
      });
    }
    if (vector.additional_config !== undefined && vector.type !== 'desktop_notification') {
      context.addIssue({
        code: 'custom',
        path: ['additional_config'],
        message: `only the "desktop_notification" vector takes additional_config, not "${vector.type}"`,
      });
    }
    if (vector.type === 'vs_code' && vector.params) {
      const extension = vector.params.file_path_local.split('.').pop()?.toLowerCase() ?? '';
      if (!(VS_CODE_INJECTION_EXTENSIONS as readonly string[]).includes(extension)) {
        context.addIssue({
          code: 'custom',
          path: ['params', 'file_path_local'],
          message: `the "vs_code" vector supports .md, .txt and .py files, got ".${extension}"`,
        });
      }
    }
  });
export type InjectionVector = z.infer<typeof injectionVectorSchema>;
