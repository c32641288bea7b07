import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ScxmlInvalidError, type ScxmlLocation } from '../errors.js';

/** An XML element with its attributes, children in document order and source position. */
export interface XmlElement {
  /** Local name (any namespace prefix removed). */
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly XmlElement[];
  /** Concatenated text content directly inside the element (CDATA included), trimmed. */
  readonly text: string;
  readonly location: ScxmlLocation;
}

const localName = (name: string): string => name.slice(name.indexOf(':') + 1);

/**
 * Start positions of the element start tags in `source`, in document order. Comments,
 * CDATA sections, processing instructions and DOCTYPE are skipped, so the i-th position
 * belongs to the i-th element of a pre-order walk of the parsed tree.
 */
function startTagPositions(source: string): { line: number; column: number }[] {
  const out: { line: number; column: number }[] = [];
  let line = 1;
  let lineStart = 0;
  const advanceTo = (end: number, from: number) => {
    for (let j = from; j < end; j++) if (source.charCodeAt(j) === 10) { line++; lineStart = j + 1; }
  };
  let i = 0;
  while (i < source.length) {
    const lt = source.indexOf('<', i);
    if (lt < 0) break;
    advanceTo(lt, i);
    let end: number;
    if (source.startsWith('<!--', lt)) end = source.indexOf('-->', lt) + 3;
    else if (source.startsWith('<![CDATA[', lt)) end = source.indexOf(']]>', lt) + 3;
    else if (source.startsWith('<?', lt)) end = source.indexOf('?>', lt) + 2;
    else if (source.startsWith('<!', lt)) end = source.indexOf('>', lt) + 1;
    else {
      if (/[A-Za-z_]/.test(source.charAt(lt + 1))) out.push({ line, column: lt - lineStart + 1 });
      end = lt + 1;
    }
    if (end <= lt) end = source.length;
    advanceTo(end, lt);
    i = end;
  }
  return out;
}

type RawNode = Record<string, unknown>;

/**
 * Parses XML into {@link XmlElement}s with line numbers (fast-xml-parser with
 * `preserveOrder`, so document order is kept).
 *
 * @throws {@link ScxmlInvalidError} when the text is not well-formed XML.
 */
export function parseXmlTree(source: string): XmlElement {
  const valid = XMLValidator.validate(source);
  if (valid !== true) {
    const { line, col, msg } = valid.err;
    throw new ScxmlInvalidError({ element: 'xml', line, column: col }, `not well-formed XML: ${msg}`);
  }
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    cdataPropName: '#cdata',
  });
  const raw = parser.parse(source) as RawNode[];
  const positions = startTagPositions(source);
  let index = 0;
  const convert = (node: RawNode): XmlElement | undefined => {
    const key = Object.keys(node).find((k) => k !== ':@');
    if (key === undefined || key === '#text' || key === '#cdata') return undefined;
    const pos = positions[index++] ?? { line: 0, column: 0 };
    const name = localName(key);
    const attrs: Record<string, string> = {};
    for (const [k, v] of Object.entries((node[':@'] as Record<string, unknown> | undefined) ?? {})) attrs[k] = String(v);
    const children: XmlElement[] = [];
    let text = '';
    for (const child of (node[key] as RawNode[] | undefined) ?? []) {
      if ('#text' in child) text += String(child['#text']);
      else if ('#cdata' in child) text += ((child['#cdata'] as RawNode[])[0]?.['#text'] as string | undefined) ?? '';
      else {
        const c = convert(child);
        if (c) children.push(c);
      }
    }
    return { name, attrs, children, text: text.trim(), location: { element: name, line: pos.line, column: pos.column } };
  };
  const roots = raw.map(convert).filter((e): e is XmlElement => e !== undefined);
  if (roots.length !== 1) throw new ScxmlInvalidError(undefined, `expected one root element, found ${roots.length}.`);
  return roots[0]!;
}
