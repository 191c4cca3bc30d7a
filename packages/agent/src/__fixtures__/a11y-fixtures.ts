// Accessibility XML written by hand in the shape the in-VM server returns (reference
// osworld-harness.md §1.3): root `desktop-frame` with the Ubuntu namespace map, tags as role names
// with `-`, `st:*` states, `attr:*` attributes, `cp:screencoord` / `cp:size` only on showing nodes,
// text as element text. The server writes no whitespace between elements; `compact` removes the
// line breaks and indentation used here for reading.

export const UBUNTU_NAMESPACES =
  'xmlns:st="https://accessibility.ubuntu.example.org/ns/state" ' +
  'xmlns:attr="https://accessibility.ubuntu.example.org/ns/attributes" ' +
  'xmlns:cp="https://accessibility.ubuntu.example.org/ns/component" ' +
  'xmlns:doc="https://accessibility.ubuntu.example.org/ns/document" ' +
  'xmlns:docattr="https://accessibility.ubuntu.example.org/ns/document/attributes" ' +
  'xmlns:txt="https://accessibility.ubuntu.example.org/ns/text" ' +
  'xmlns:val="https://accessibility.ubuntu.example.org/ns/value" ' +
  'xmlns:act="https://accessibility.ubuntu.example.org/ns/action"';

/** Removes the whitespace between tags that contains a line break (formatting, not text). */
export function compact(xml: string): string {
  return xml.replace(/>\s*\n\s*</g, '><').trim();
}

/**
 * A desktop with the GNOME top bar, a Chrome window showing a page and a settings dialog. Every
 * filter rule has nodes failing it (named after the rule they fail), and there are nodes for the
 * text-column rules (quotes, empty text, text stopping at the first child).
 */
export const DESKTOP_XML = compact(`
<desktop-frame ${UBUNTU_NAMESPACES} name="main" cp:screencoord="(0, 0)" cp:size="(1920, 1080)">
  <application name="gnome-shell" attr:toolkit="Clutter">
    <panel name="Top Bar" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(0, 0)" cp:size="(1920, 32)">
      <push-button name="Activities" st:enabled="true" st:sensitive="true" st:focusable="true" st:showing="true" st:visible="true" cp:screencoord="(0, 0)" cp:size="(100, 32)" act:click_desc="Activate"></push-button>
      <label name="" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(900, 6)" cp:size="(120, 20)">Nov 21  09:41</label>
      <push-button name="rule2-not-showing" st:enabled="true" st:visible="true"></push-button>
      <push-button name="rule2-not-visible" st:enabled="true" st:showing="true" cp:screencoord="(1700, 0)" cp:size="(40, 32)"></push-button>
    </panel>
  </application>
  <application name="Google Chrome" attr:toolkit="Chromium">
    <frame name="Example Domain - Google Chrome" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(70, 32)" cp:size="(1850, 1048)">
      <filler name="" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(70, 32)" cp:size="(1850, 80)">
        <page-tab name="rule1-page-tab" st:enabled="true" st:selectable="true" st:showing="true" st:visible="true" cp:screencoord="(80, 40)" cp:size="(240, 34)"></page-tab>
        <entry name="Address and search bar" st:editable="true" st:focusable="true" st:showing="true" st:visible="true" cp:screencoord="(200, 80)" cp:size="(1400, 28)" attr:class="OmniboxViewViews">example.com</entry>
        <push-button name="rule3-not-actionable" st:sensitive="true" st:showing="true" st:visible="true" cp:screencoord="(1610, 80)" cp:size="(28, 28)"></push-button>
      </filler>
      <document-web name="Example Domain" st:enabled="true" st:focusable="true" st:showing="true" st:visible="true" cp:screencoord="(70, 112)" cp:size="(1850, 968)" attr:class="body" attr:description="The page">
        <heading name="Example Domain" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(600, 200)" cp:size="(700, 48)" attr:level="1"></heading>
        <paragraph name="" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(600, 270)" cp:size="(700, 60)" attr:class="intro" attr:description="First paragraph">This domain is for use in examples; see &quot;RFC 2606&quot; &amp; don't ask.</paragraph>
        <link name="More information..." st:enabled="true" st:focusable="true" st:showing="true" st:visible="true" cp:screencoord="(600, 340)" cp:size="(180, 22)">
          <static name="" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(600, 340)" cp:size="(180, 22)">More information...</static>
        </link>
        <section name="" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(600, 400)" cp:size="(700, 200)">Intro text<push-button name="Accept &lt;all&gt;" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(610, 410)" cp:size="(120, 30)"></push-button>tail text</section>
        <label name="" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(600, 620)" cp:size="(100, 20)"></label>
        <image name="" image="true" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(1400, 200)" cp:size="(64, 64)"></image>
        <push-button name="rule5-negative-x" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(-40, 500)" cp:size="(30, 30)"></push-button>
        <push-button name="rule5-zero-width" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(700, 500)" cp:size="(0, 30)"></push-button>
        <push-button name="rule5-no-position" st:enabled="true" st:showing="true" st:visible="true"></push-button>
        <table-cell name="" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(600, 700)" cp:size="(80, 20)">A1</table-cell>
        <table-cell name="" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(680, 700)" cp:size="(80, 20)">"quoted"</table-cell>
      </document-web>
    </frame>
  </application>
  <application name="Settings" attr:toolkit="GTK">
    <dialog name="Preferences" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(500, 300)" cp:size="(600, 400)">
      <check-box name="Remember me" st:checkable="true" st:showing="true" st:visible="true" cp:screencoord="(520, 340)" cp:size="(20, 20)"></check-box>
      <combo-box name="Font" st:expandable="true" st:showing="true" st:visible="true" cp:screencoord="(520, 380)" cp:size="(200, 30)"></combo-box>
      <toggle-button name="Dark mode" st:enabled="true" st:checkable="true" st:showing="true" st:visible="true" cp:screencoord="(520, 420)" cp:size="(60, 30)"></toggle-button>
      <slider name="Volume" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(520, 460)" cp:size="(300, 20)" val:value="40" val:min="0" val:max="100"></slider>
      <filler name="rule1-filler" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(520, 500)" cp:size="(300, 20)"></filler>
      <menu name="Edit" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(520, 540)" cp:size="(50, 20)"/>
    </dialog>
  </application>
</desktop-frame>`);

/** The names of the nodes of {@link DESKTOP_XML} the filter keeps, in document order. */
export const DESKTOP_KEPT = [
  'push-button Activities',
  'label ',
  'entry Address and search bar',
  'document-web Example Domain',
  'heading Example Domain',
  'paragraph ',
  'link More information...',
  'static ',
  'section ',
  'push-button Accept <all>',
  'table-cell ',
  'table-cell ',
  'check-box Remember me',
  'combo-box Font',
  'toggle-button Dark mode',
  'slider Volume',
  'menu Edit',
];
