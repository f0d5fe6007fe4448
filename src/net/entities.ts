// HTML character references: numeric ones, and named ones from the HTML 4 set plus common HTML5 additions.
// HTMLRewriter hands over text and attributes undecoded, so the converter decodes its joined output once.

const LATIN1 =
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro " +
  "para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil " +
  "Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave " +
  "Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml " +
  "igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml";
const GREEK_UPPER = "Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho";
const GREEK_UPPER2 = "Sigma Tau Upsilon Phi Chi Psi Omega";
const GREEK_LOWER = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigmaf sigma tau upsilon phi chi psi omega";

const OTHER: Record<string, number> = {
  quot: 34, amp: 38, apos: 39, lt: 60, gt: 62, Tab: 9, NewLine: 10, excl: 33, num: 35, dollar: 36, percnt: 37,
  lpar: 40, rpar: 41, ast: 42, plus: 43, comma: 44, period: 46, sol: 47, colon: 58, semi: 59, equals: 61, quest: 63,
  commat: 64, lsqb: 91, lbrack: 91, bsol: 92, rsqb: 93, rbrack: 93, Hat: 94, lowbar: 95, grave: 96, lcub: 123,
  lbrace: 123, verbar: 124, vert: 124, rcub: 125, rbrace: 125,
  OElig: 338, oelig: 339, Scaron: 352, scaron: 353, Yuml: 376, fnof: 402, circ: 710, tilde: 732,
  thetasym: 977, upsih: 978, piv: 982,
  ensp: 8194, emsp: 8195, thinsp: 8201, zwnj: 8204, zwj: 8205, lrm: 8206, rlm: 8207, hyphen: 8208, dash: 8208,
  ndash: 8211, mdash: 8212, lsquo: 8216, rsquo: 8217, sbquo: 8218, ldquo: 8220, rdquo: 8221, bdquo: 8222,
  dagger: 8224, Dagger: 8225, bull: 8226, bullet: 8226, hellip: 8230, permil: 8240, prime: 8242, Prime: 8243,
  lsaquo: 8249, rsaquo: 8250, oline: 8254, frasl: 8260, euro: 8364, image: 8465, weierp: 8472, real: 8476,
  trade: 8482, alefsym: 8501, larr: 8592, uarr: 8593, rarr: 8594, darr: 8595, harr: 8596, crarr: 8629,
  lArr: 8656, uArr: 8657, rArr: 8658, dArr: 8659, hArr: 8660, forall: 8704, part: 8706, exist: 8707,
  empty: 8709, nabla: 8711, isin: 8712, notin: 8713, ni: 8715, prod: 8719, sum: 8721, minus: 8722,
  lowast: 8727, radic: 8730, prop: 8733, infin: 8734, ang: 8736, and: 8743, or: 8744, cap: 8745, cup: 8746,
  int: 8747, there4: 8756, sim: 8764, cong: 8773, asymp: 8776, ne: 8800, equiv: 8801, le: 8804, ge: 8805,
  sub: 8834, sup: 8835, nsub: 8836, sube: 8838, supe: 8839, oplus: 8853, otimes: 8855, perp: 8869, sdot: 8901,
  lceil: 8968, rceil: 8969, lfloor: 8970, rfloor: 8971, lang: 10216, rang: 10217, loz: 9674, spades: 9824,
  clubs: 9827, hearts: 9829, diams: 9830, starf: 9733, star: 9734, check: 10003, cross: 10007, copysr: 8471,
};

/** Named references whose trailing semicolon browsers let authors omit (the common legacy ones). */
const LEGACY_NO_SEMICOLON = new Set(["amp", "lt", "gt", "quot", "nbsp", "copy", "reg"]);

/** Windows-1252 meanings browsers give to numeric references 128-159. */
const CP1252: Record<number, number> = {
  128: 8364, 130: 8218, 131: 402, 132: 8222, 133: 8230, 134: 8224, 135: 8225, 136: 710, 137: 8240, 138: 352,
  139: 8249, 140: 338, 142: 381, 145: 8216, 146: 8217, 147: 8220, 148: 8221, 149: 8226, 150: 8211, 151: 8212,
  152: 732, 153: 8482, 154: 353, 155: 8250, 156: 339, 158: 382, 159: 376,
};

const NAMED = new Map<string, string>();
LATIN1.split(" ").forEach((n, i) => NAMED.set(n, String.fromCodePoint(160 + i)));
GREEK_UPPER.split(" ").forEach((n, i) => NAMED.set(n, String.fromCodePoint(913 + i)));
GREEK_UPPER2.split(" ").forEach((n, i) => NAMED.set(n, String.fromCodePoint(931 + i)));
GREEK_LOWER.split(" ").forEach((n, i) => NAMED.set(n, String.fromCodePoint(945 + i)));
for (const [n, cp] of Object.entries(OTHER)) NAMED.set(n, String.fromCodePoint(cp));

function numeric(cp: number): string {
  if (CP1252[cp]) return String.fromCodePoint(CP1252[cp]!);
  if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return "\uFFFD";
  return String.fromCodePoint(cp);
}

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/**
 * Decodes character references in one left-to-right pass (so `&amp;lt;` correctly becomes `&lt;`). A loop
 * over indexOf("&") rather than a regex with a callback: pages carry tens of thousands of references and
 * a JavaScript callback per match was the converter's largest cost.
 */
export function decodeEntities(text: string): string {
  let amp = text.indexOf("&");
  if (amp < 0) return text;
  const parts: string[] = [];
  let last = 0;
  const n = text.length;
  while (amp >= 0) {
    let i = amp + 1;
    let char: string | undefined;
    if (text.charCodeAt(i) === 35 /* # */) {
      i++;
      const hex = text.charCodeAt(i) === 120 || text.charCodeAt(i) === 88; // x X
      if (hex) i++;
      const digits = i;
      while (i < n && i - digits < 8 && (hex ? isHex(text.charCodeAt(i)) : isDigit(text.charCodeAt(i)))) i++;
      if (i > digits) char = numeric(Number.parseInt(text.slice(digits, i), hex ? 16 : 10));
      if (char !== undefined && text.charCodeAt(i) === 59) i++;
    } else {
      while (i < n && i - amp <= 32 && isAlnum(text.charCodeAt(i))) i++;
      const name = text.slice(amp + 1, i);
      const semi = text.charCodeAt(i) === 59;
      char = NAMED.get(name);
      if (char !== undefined && !semi && !LEGACY_NO_SEMICOLON.has(name)) char = undefined;
      if (char !== undefined && semi) i++;
    }
    if (char !== undefined) {
      if (amp > last) parts.push(text.slice(last, amp));
      parts.push(char);
      last = i;
    }
    amp = text.indexOf("&", char !== undefined ? i : amp + 1);
  }
  if (last === 0) return text;
  parts.push(text.slice(last));
  return parts.join("");
}
