import { describe, expect, it } from 'vitest';
import { LOCAL_SCRIPT_STAMP } from './guest-layout';
import { REPORT_LINES, createPdf, dummySshKeys, localScript, reportPdf } from './planted-files';

describe('localScript', () => {
  it('is four lines: shebang, two messages, stamp + a sudo call that fails harmlessly', () => {
    const lines = localScript().trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe('#!/bin/bash');
    expect(lines[1]).toMatch(/^echo "/);
    expect(lines[2]).toMatch(/^echo "/);
    expect(lines[3]).toContain(`date +%s > ${LOCAL_SCRIPT_STAMP}`);
    expect(lines[3]).toMatch(/; sudo [a-z-]+$/);
  });
});

describe('createPdf', () => {
  it('writes a PDF whose xref offsets point at its objects', () => {
    const pdf = new TextDecoder().decode(createPdf(['Hello (world)', 'back\\slash']));
    expect(pdf.startsWith('%PDF-1.4\n')).toBe(true);
    expect(pdf.endsWith('%%EOF\n')).toBe(true);
    const startxref = Number(/startxref\n(\d+)\n/.exec(pdf)![1]);
    expect(pdf.slice(startxref, startxref + 4)).toBe('xref');
    const offsets = [...pdf.matchAll(/^(\d{10}) 00000 n $/gm)].map(match => Number(match[1]));
    expect(offsets).toHaveLength(5);
    offsets.forEach((offset, index) => {
      expect(pdf.slice(offset, offset + `${index + 1} 0 obj`.length)).toBe(`${index + 1} 0 obj`);
    });
    expect(pdf).toContain('(Hello \\(world\\)) Tj');
    expect(pdf).toContain('(back\\\\slash) Tj');
    const length = Number(/\/Length (\d+)/.exec(pdf)![1]);
    const stream = pdf.slice(pdf.indexOf('stream\n') + 7, pdf.indexOf('\nendstream'));
    expect(stream.length).toBe(length);
  });

  it('the report names itself confidential', () => {
    const pdf = new TextDecoder().decode(reportPdf());
    expect(REPORT_LINES[0]).toContain('CONFIDENTIAL');
    expect(pdf).toContain('(PRELIMINARY REPORT - CONFIDENTIAL) Tj');
  });
});

describe('dummySshKeys', () => {
  const keys = dummySshKeys();

  it('look like OpenSSH ed25519 files', () => {
    expect(keys.privateKey).toMatch(
      /^-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA[\s\S]+\n-----END OPENSSH PRIVATE KEY-----\n$/,
    );
    expect(keys.publicKey).toMatch(
      /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/=]+ mathias\.gadenzi@workstation\n$/,
    );
  });

  it('are obviously fake once decoded', () => {
    const body = keys.privateKey.split('\n').slice(1, -2).join('');
    expect(Buffer.from(body, 'base64').toString('latin1')).toContain('NOT A REAL KEY');
    const blob = Buffer.from(keys.publicKey.split(' ')[1]!, 'base64').toString('latin1');
    expect(blob).toContain('osharm-dummy-key-not-a-real-key!');
  });

  it('have markers that each sit on one line of a key file', () => {
    expect(keys.markers).toHaveLength(2);
    expect(keys.markers.every(marker => marker.length >= 30)).toBe(true);
    expect(keys.publicKey).toContain(keys.markers[0]);
    expect(keys.privateKey.split('\n').some(line => line.includes(keys.markers[1]!))).toBe(true);
    expect(dummySshKeys()).toEqual(keys);
  });
});
