import { describe, expect, test } from "bun:test";
import { decodeEntities } from "../../src/net/entities";
import { htmlToText, linksFor } from "../../src/net/html-text";

const BASE = "https://docs.example/guide/intro.html";
const text = (html: string) => htmlToText(html, BASE).text;

describe("structure", () => {
  test("headings, paragraphs, lists, line breaks", () => {
    const t = text(`<h1>Title</h1><p>First   para
      wraps here.</p><p>Second<br>line</p><ul><li>one</li><li>two</li></ul><h3>Sub</h3>tail`);
    expect(t).toBe("# Title\n\nFirst para wraps here.\n\nSecond\nline\n\n- one\n- two\n\n### Sub\n\ntail");
  });

  test("table cells are separated and rows are lines", () => {
    const t = text(`<table><tr><th>Name</th><th>Value</th></tr><tr><td> a </td><td>1</td></tr></table>`);
    expect(t).toBe("Name | Value\na | 1");
  });

  test("pre keeps its whitespace", () => {
    const t = text(`<p>Code:</p><pre>  fn main() {\n\tprintln!("x  y");\n  }</pre><p>after</p>`);
    expect(t).toBe(`Code:\n\n  fn main() {\n\tprintln!("x  y");\n  }\n\nafter`);
  });

  test("script, style, template, svg, noscript and comments are dropped", () => {
    const t = text(
      `<head><style>p{}</style><script>var s = "</div><p>not text</p>";</script></head>` +
        `<body>A<!-- hidden -->B<template><p>tpl</p></template><svg><title>icon</title><text>svg</text></svg><noscript>ns</noscript>C</body>`,
    );
    expect(t).toBe("ABC");
  });

  test("inline elements do not break words; whitespace between them collapses to one space", () => {
    expect(text(`<p><b>bold</b><i>italic</i> <span> spaced </span>\n<em>x</em></p>`)).toBe("bolditalic spaced x");
  });

  test("images show their alt text", () => {
    expect(text(`<p>Logo: <img src="l.png" alt="ACME &amp; co"> end <img src="x.png"></p>`)).toBe("Logo: [image: ACME & co] end");
  });

  test("unclosed elements and stray < still read sensibly", () => {
    expect(text(`<ul><li>one<li>two</ul><p>a < b and c > d<p>next`)).toBe("- one\n- two\n\na < b and c > d\n\nnext");
  });

  test("attribute values may hold > inside quotes", () => {
    expect(text(`<p title="a > b" data-x='c>d'>kept</p>`)).toBe("kept");
  });

  test("tag names are case-insensitive", () => {
    expect(text(`<P>one<BR>two</P><SCRIPT>bad()</SCRIPT><DIV>three</Div>`)).toBe("one\ntwo\n\nthree");
  });

  test("the title is reported separately, not in the text", () => {
    const r = htmlToText(`<html><head><title> The  &quot;Guide&quot; </title></head><body>Body</body></html>`, BASE);
    expect(r.title).toBe('The "Guide"');
    expect(r.text).toBe("Body");
  });
});

describe("entities", () => {
  test("named, numeric and hex references decode once", () => {
    expect(text(`<p>&lt;tag&gt; &amp;lt; &quot;q&quot; &#39;s&#x27; &copy; &mdash; &hellip; &euro; &Omega;&omega;&sigmaf; &yuml;</p>`)).toBe(
      `<tag> &lt; "q" 's' © — … € Ωως ÿ`,
    );
  });

  test("nbsp survives whitespace collapsing", () => {
    expect(text(`<p>a&nbsp;&nbsp;b</p>`)).toBe("a\u00a0\u00a0b");
  });

  test("unknown or unterminated references stay as written", () => {
    expect(decodeEntities("AT&T &bogus; &amp &lt &copy2024 & &#;")).toBe("AT&T &bogus; & < &copy2024 & &#;");
  });

  test("numeric edge cases: Windows-1252 range, NUL and out of range", () => {
    expect(decodeEntities("&#150;&#0;&#x110000;&#128512;")).toBe("–\uFFFD\uFFFD😀");
  });
});

describe("links", () => {
  test("links get numbered markers, relative ones resolved, duplicates share a number", () => {
    const r = htmlToText(
      `<p><a href="../api/x.html">API</a>, <a href="https://other.example/">other</a>, <a href="/guide/../api/x.html">again</a></p>`,
      BASE,
    );
    expect(r.text).toBe("API[1], other[2], again[1]");
    expect(r.links).toEqual(["https://docs.example/api/x.html", "https://other.example/"]);
  });

  test("javascript:, data:, mailto: and same-page anchors get no marker", () => {
    const r = htmlToText(
      `<a href="javascript:alert(1)">js</a> <a href=" JavaScript:void(0)">js2</a> <a href="data:text/html,x">d</a> ` +
        `<a href="mailto:a@b.c">m</a> <a href="#top">top</a> <a>none</a>`,
      BASE,
    );
    expect(r.text).toBe("js js2 d m top none");
    expect(r.links).toEqual([]);
  });

  test("hrefs are entity-decoded and <base href> is honoured", () => {
    const r = htmlToText(`<head><base href="https://cdn.example/v2/"></head><a href="page?a=1&amp;b=2">p</a>`, BASE);
    expect(r.links).toEqual(["https://cdn.example/v2/page?a=1&b=2"]);
  });

  test("attribute names are case-insensitive, other attributes are ignored, the first href wins", () => {
    const r = htmlToText(`<A class="x>y" HREF='/upper' href="/second" data-href="/no">X</A> <IMG SRC=a.png ALT=Logo>`, BASE);
    expect(r.text).toBe("X[1] [image: Logo]");
    expect(r.links).toEqual(["https://docs.example/upper"]);
  });

  test("an unclosed link is closed by the next one and at the end", () => {
    const r = htmlToText(`<a href="/a">A<a href="/b">B`, BASE);
    expect(r.text).toBe("A[1]B[2]");
  });

  test("linksFor lists only the links whose markers appear, in order", () => {
    const links = ["https://a/", "https://b/", "https://c/"];
    expect(linksFor("see [3] and [1] and [1] and [9]", links)).toBe("Links:\n[1] https://a/\n[3] https://c/");
    expect(linksFor("no markers", links)).toBe("");
  });
});
