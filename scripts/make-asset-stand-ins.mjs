#!/usr/bin/env node
// Writes a stand-in file of the right type for every download URL of a dataset (the files its
// tasks fetch from Google Drive at setup, and the evaluators' cloud_file files), plus an asset map
// pointing each URL at its stand-in, for runs and checks with no internet:
//
//   node scripts/make-asset-stand-ins.mjs [--dataset DIR] [--out DIR]
//   osharm run … --asset-map asset-stand-ins/asset-map.json --offline
//
// --dataset: the dataset base dir (default ../shared/osharm-dataset/evaluation_examples beside the
// repo); every test_*.json index in it is read. --out: where the files and asset-map.json go
// (default ./asset-stand-ins). The type follows the guest file's extension: minimal valid
// docx / xlsx / pptx / odt / pdf / png / jpg / zip / tar.gz / csv / html / txt / py files (an
// archive holds <name>/README.txt, the folder tasks unzip into; thunderbird-profile.tar.gz is the
// dataset's prepared Thunderbird profile, re-packed as gzip). Needs a build (bash scripts/setup.sh).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const load = name => import(join(root, 'packages', name, 'dist', 'index.js'));
const { loadDataset, defaultIndexPaths } = await load('task-schema');
const { listTaskDownloads, uuid5 } = await load('desktop-env');
const { createDocx, createXlsx, createPdf } = await import(
  join(root, 'packages', 'injection', 'dist', 'building-blocks.js')
);
const sharp = createRequire(join(root, 'packages', 'agent', 'package.json'))('sharp');
const { zipSync, strToU8 } = createRequire(join(root, 'packages', 'injection', 'package.json'))(
  'fflate',
);

const { values } = parseArgs({
  options: {
    dataset: {
      type: 'string',
      default: join(root, '..', 'shared', 'osharm-dataset', 'evaluation_examples'),
    },
    out: { type: 'string', default: 'asset-stand-ins' },
  },
});
const dataset = resolve(values.dataset);
const out = resolve(values.out);
const datasetRoot = dirname(dataset); // upstream's assets/ sits beside evaluation_examples/

const label = name => `osharm stand-in for ${name}`;
const zip = entries => zipSync(entries, { mtime: new Date('2024-01-01T00:00:00Z') });

function pptx(text) {
  const ns =
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
  const rel = (type, target, id = 'rId1') =>
    `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"/>`;
  const rels = (...items) =>
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${items.join('')}</Relationships>`;
  const ct = 'application/vnd.openxmlformats-officedocument';
  const tree = shapes =>
    `<p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${shapes}</p:spTree></p:cSld>`;
  const color = (name, hex) => `<a:${name}><a:srgbClr val="${hex}"/></a:${name}>`;
  const solid = '<a:solidFill><a:schemeClr val="phClr"/></a:solidFill>';
  const theme = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="Stand-in"><a:themeElements><a:clrScheme name="Stand-in">${color('dk1', '000000')}${color('lt1', 'FFFFFF')}${color('dk2', '1F2937')}${color('lt2', 'F3F4F6')}${color('accent1', '2563EB')}${color('accent2', '16A34A')}${color('accent3', '9333EA')}${color('accent4', 'EA580C')}${color('accent5', '0891B2')}${color('accent6', 'BE123C')}${color('hlink', '2563EB')}${color('folHlink', '9333EA')}</a:clrScheme><a:fontScheme name="Stand-in"><a:majorFont><a:latin typeface="Liberation Sans"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont><a:minorFont><a:latin typeface="Liberation Sans"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme><a:fmtScheme name="Stand-in"><a:fillStyleLst>${solid}${solid}${solid}</a:fillStyleLst><a:lnStyleLst><a:ln w="9525">${solid}</a:ln><a:ln w="9525">${solid}</a:ln><a:ln w="9525">${solid}</a:ln></a:lnStyleLst><a:effectStyleLst><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle></a:effectStyleLst><a:bgFillStyleLst>${solid}${solid}${solid}</a:bgFillStyleLst></a:fmtScheme></a:themeElements></a:theme>`;
  const textBox = `<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="457200" y="2743200"/><a:ext cx="8229600" cy="1371600"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr><p:txBody><a:bodyPr/><a:lstStyle/><a:p><a:r><a:rPr lang="en-US" sz="2800"/><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp>`;
  const clrMap =
    '<p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/>';
  const files = {
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/presentation.xml" ContentType="${ct}.presentationml.presentation.main+xml"/><Override PartName="/ppt/slides/slide1.xml" ContentType="${ct}.presentationml.slide+xml"/><Override PartName="/ppt/slideLayouts/slideLayout1.xml" ContentType="${ct}.presentationml.slideLayout+xml"/><Override PartName="/ppt/slideMasters/slideMaster1.xml" ContentType="${ct}.presentationml.slideMaster+xml"/><Override PartName="/ppt/theme/theme1.xml" ContentType="${ct}.theme+xml"/></Types>`,
    '_rels/.rels': rels(rel('officeDocument', 'ppt/presentation.xml')),
    'ppt/presentation.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:presentation ${ns}><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>`,
    'ppt/_rels/presentation.xml.rels': rels(
      rel('slideMaster', 'slideMasters/slideMaster1.xml'),
      rel('slide', 'slides/slide1.xml', 'rId2'),
      rel('theme', 'theme/theme1.xml', 'rId3'),
    ),
    'ppt/slideMasters/slideMaster1.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:sldMaster ${ns}>${tree('')}${clrMap}<p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst></p:sldMaster>`,
    'ppt/slideMasters/_rels/slideMaster1.xml.rels': rels(
      rel('slideLayout', '../slideLayouts/slideLayout1.xml'),
      rel('theme', '../theme/theme1.xml', 'rId2'),
    ),
    'ppt/slideLayouts/slideLayout1.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:sldLayout ${ns}>${tree('')}<p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>`,
    'ppt/slideLayouts/_rels/slideLayout1.xml.rels': rels(
      rel('slideMaster', '../slideMasters/slideMaster1.xml'),
    ),
    'ppt/slides/slide1.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:sld ${ns}>${tree(textBox)}<p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>`,
    'ppt/slides/_rels/slide1.xml.rels': rels(
      rel('slideLayout', '../slideLayouts/slideLayout1.xml'),
    ),
    'ppt/theme/theme1.xml': theme,
  };
  return zip(Object.fromEntries(Object.entries(files).map(([name, xml]) => [name, strToU8(xml)])));
}

function odt(text) {
  const office = 'urn:oasis:names:tc:opendocument:xmlns';
  return zip({
    // the mimetype entry comes first and uncompressed (ODF's rule)
    mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
    'META-INF/manifest.xml': strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="${office}:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
    ),
    'content.xml': strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="${office}:office:1.0" xmlns:text="${office}:text:1.0" office:version="1.2"><office:body><office:text><text:p>${text}</text:p></office:text></office:body></office:document-content>`,
    ),
  });
}

function tarGz(name, stem) {
  const work = mkdtempSync(join(tmpdir(), 'osharm-stand-in-'));
  try {
    const profile = join(datasetRoot, 'assets', 'thunderbird-profile_maildir_gmail_gadenzi.tar.xz');
    if (name === 'thunderbird-profile.tar.gz' && existsSync(profile)) {
      execFileSync('tar', ['-xJf', profile, '-C', work]);
    } else {
      mkdirSync(join(work, stem));
      writeFileSync(join(work, stem, 'README.txt'), `${label(name)}\n`);
    }
    const archive = join(work, '..', `${basename(work)}.tar.gz`);
    execFileSync('tar', ['-czf', archive, '-C', work, ...readdirSync(work)]);
    return archive;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function image(name, format) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600"><rect width="800" height="600" fill="#dbeafe"/><text x="40" y="300" font-size="28" font-family="DejaVu Sans">${label(name)}</text></svg>`;
  return sharp(Buffer.from(svg)).toFormat(format).toBuffer();
}

/** The bytes (or a file to move) of a stand-in for a guest file called `name`. */
async function standIn(name) {
  const extension = name.toLowerCase().endsWith('.tar.gz')
    ? '.tar.gz'
    : extname(name).toLowerCase();
  const stem = basename(name, extension);
  const text = label(name);
  switch (extension) {
    case '.docx':
      return createDocx([text]);
    case '.xlsx':
      return createXlsx([
        ['stand-in', 'value'],
        [name, 1],
      ]);
    case '.pptx':
      return pptx(text);
    case '.odt':
      return odt(text);
    case '.pdf':
      return createPdf([text]);
    case '.png':
      return image(name, 'png');
    case '.jpg':
    case '.jpeg':
      return image(name, 'jpeg');
    case '.zip':
      return zip({ [`${stem}/README.txt`]: strToU8(`${text}\n`) });
    case '.tar.gz':
    case '.tgz':
      return { file: tarGz(name, stem) };
    case '.csv':
      return `name,value\n${name},1\n`;
    case '.html':
      return `<!doctype html><html><head><title>${stem}</title></head><body><p>${text}</p></body></html>\n`;
    case '.py':
      return `print(${JSON.stringify(text)})\n`;
    default:
      return `${text}\n`;
  }
}

const { tasks } = await loadDataset({ baseDir: dataset, indexPaths: defaultIndexPaths(dataset) });
const byUrl = new Map();
for (const task of tasks) {
  for (const download of listTaskDownloads(task.config)) {
    const name = basename(download.guestPath ?? download.cacheFile);
    const seen = byUrl.get(download.url);
    if (seen && extname(seen) !== extname(name)) {
      console.warn(
        `${download.url}: used as ${seen} and ${name}; the stand-in is a ${extname(seen)}`,
      );
    }
    if (!seen) byUrl.set(download.url, name);
  }
}
mkdirSync(out, { recursive: true });
const map = {};
const kinds = new Map();
for (const [url, name] of byUrl) {
  const file = join(out, `${uuid5(url)}_${name}`);
  const content = await standIn(name);
  if (content && typeof content === 'object' && 'file' in content) {
    execFileSync('mv', [content.file, file]);
  } else {
    writeFileSync(file, content);
  }
  map[url] = relative(out, file);
  const extension = name.toLowerCase().endsWith('.tar.gz')
    ? '.tar.gz'
    : extname(name).toLowerCase();
  kinds.set(extension, (kinds.get(extension) ?? 0) + 1);
}
writeFileSync(join(out, 'asset-map.json'), `${JSON.stringify(map, null, 2)}\n`);
// inside the working dir relative, elsewhere absolute (docs/cli.md)
const shown = path => {
  const rel = relative(process.cwd(), path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
};
console.log(
  `${byUrl.size} stand-in file(s) for ${tasks.length} task(s) in ${shown(out)} (${[...kinds].map(([kind, count]) => `${kind} ${count}`).join(', ')}); asset map: ${shown(join(out, 'asset-map.json'))}`,
);
