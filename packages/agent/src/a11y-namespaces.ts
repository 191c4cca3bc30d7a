/** The platform whose accessibility XML is read (namespaces and the visibility rule differ). */
export type A11yPlatform = 'ubuntu' | 'windows';

/** The namespace URIs the filter, linearizer and tagger look attributes up under. */
export interface A11yNamespaces {
  readonly state: string;
  readonly component: string;
  readonly value: string;
  /** Where `class` and `description` are looked up (see {@link a11yNamespaces} for the quirk). */
  readonly attributes: string;
  /** Windows' own `class` namespace (used for the class column on Windows and the edit-value rule). */
  readonly windowsClass: string;
}

const ubuntu = (name: string) => `https://accessibility.ubuntu.example.org/ns/${name}`;
const windows = (name: string) => `https://accessibility.windows.example.org/ns/${name}`;

/** The namespace URIs the in-VM server writes (reference osworld-harness.md §1.3). */
export const A11Y_NAMESPACES = {
  ubuntu: {
    state: ubuntu('state'),
    attributes: ubuntu('attributes'),
    component: ubuntu('component'),
    document: ubuntu('document'),
    documentAttributes: ubuntu('document/attributes'),
    text: ubuntu('text'),
    value: ubuntu('value'),
    action: ubuntu('action'),
  },
  windows: {
    state: windows('state'),
    attributes: windows('attributes'),
    component: windows('component'),
    document: windows('document'),
    documentAttributes: windows('document/attributes'),
    text: windows('text'),
    value: windows('value'),
    action: windows('action'),
    class: windows('class'),
  },
} as const;

/**
 * The namespaces to read attributes under.
 *
 * **Upstream quirk, kept by default.** Upstream's Ubuntu map points its *attributes* namespace at
 * the Windows URL, so on Ubuntu the `class` and `description` columns of the linearized table are
 * always empty. Every recorded OS-Harm and OSWorld trace has them empty, and the model was prompted
 * that way, so osharm matches it unless `fillClassAndDescription` is set, which reads them from the
 * namespace the server really writes.
 */
export function a11yNamespaces(
  platform: A11yPlatform,
  { fillClassAndDescription = false }: { fillClassAndDescription?: boolean } = {},
): A11yNamespaces {
  const map = A11Y_NAMESPACES[platform];
  return {
    state: map.state,
    component: map.component,
    value: map.value,
    attributes:
      platform === 'ubuntu' && !fillClassAndDescription
        ? A11Y_NAMESPACES.windows.attributes
        : map.attributes,
    windowsClass: A11Y_NAMESPACES.windows.class,
  };
}
