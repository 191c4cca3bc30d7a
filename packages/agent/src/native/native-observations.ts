/**
 * The native agent's side of the screen: the screenshot made ready for the model ahead of
 * `predict`, and the answers of the observation-only calls that get one of their own (the
 * pointer position, a zoomed region).
 */
import type { AgentPredictOptions } from '../agent';
import type { CallOutcome, Screenshot } from '@osharm/models';
import type { NativeAction } from './native-action';
import { screenshotForModel, toModel, zoomImage, type ImageLimits, type Scaling } from './scaling';

/** The observation-only actions answered with something of their own (not just the next screenshot). */
export type ObservationRequest = Extract<NativeAction, { kind: 'cursor_position' | 'zoom' }>;

/**
 * A screenshot made ready for the model ahead of `predict` (the native agent's `prepareScreenshot`):
 * used only for the same screenshot bytes and the same task (scaling).
 */
export class PreparedScreenshot {
  constructor(
    readonly source: Uint8Array,
    readonly scaling: Scaling,
    readonly screenshot: Screenshot,
  ) {}
}

/** A view of the bytes as a Buffer, without a copy. */
export const bufferOf = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The screenshot as the vendor gets it (downscaled JPEG, base64). */
export async function modelScreenshot(png: Buffer, scaling: Scaling): Promise<Screenshot> {
  const image = await screenshotForModel(png, scaling);
  return { data: image.bytes.toString('base64'), mediaType: image.mediaType };
}

/**
 * The answer of a `cursor_position` (the environment's pointer position in the model's
 * coordinates, as `X=…,Y=…`) or a `zoom` (the region cut from the full-size screenshot `png`,
 * scaled to fill the vendor's image budget).
 * @throws when the environment reports no pointer position
 */
export async function observationAnswer(
  request: ObservationRequest,
  options: AgentPredictOptions,
  png: Buffer,
  scaling: Scaling,
  limits: ImageLimits,
): Promise<Pick<CallOutcome, 'text' | 'image'>> {
  if (request.kind === 'cursor_position') {
    if (!options.cursorPosition) throw new Error('the environment reports no pointer position');
    const [x, y] = await options.cursorPosition();
    const at = toModel(scaling, x, y);
    return { text: `X=${at.x},Y=${at.y}` };
  }
  const zoomed = await zoomImage(png, request.region, limits);
  return { image: { data: zoomed.bytes.toString('base64'), mediaType: zoomed.mediaType } };
}
