// Feishu message content both ways: what a user sent (text, rich text, images, files, voice) as the text the
// model reads plus the resources to download, and the model's markdown as `text` or rich-text `post` parts.

export interface Mention {
  key: string;
  name?: string;
  id?: { open_id?: string };
}

export interface Resource {
  key: string;
  type: "image" | "file";
  name: string;
  /** A voice message (Feishu gives no transcript): the core turns it into text when [transcription] is set. */
  voice?: { seconds?: number };
}

export interface InboundContent {
  text: string;
  resources: Resource[];
}

function parse(content: string): any {
  try {
    return JSON.parse(content);
  } catch {
    return {};
  }
}

/** `@_user_1` placeholders become `@Name`; the bot's own mention is dropped. */
function withMentions(text: string, mentions: Mention[], botOpenId: string): string {
  let out = text;
  for (const m of mentions) out = out.split(m.key).join(m.id?.open_id === botOpenId ? "" : `@${m.name ?? "someone"}`);
  return out.replace(/[ \t]{2,}/g, " ").trim();
}

function postText(post: any, mentions: Mention[], botOpenId: string, resources: Resource[]): string {
  const body = post?.content ? post : (Object.values(post ?? {})[0] as any);
  const lines: string[] = body?.title ? [body.title] : [];
  for (const paragraph of body?.content ?? []) {
    let line = "";
    for (const el of paragraph ?? []) {
      if (el.tag === "text" || el.tag === "md") line += el.text ?? "";
      else if (el.tag === "a") line += el.href ? `[${el.text ?? el.href}](${el.href})` : (el.text ?? "");
      else if (el.tag === "at") line += el.user_id === botOpenId ? "" : `@${el.user_name ?? el.user_id ?? "someone"}`;
      else if (el.tag === "code_block") line += `\n\`\`\`${el.language ?? ""}\n${el.text ?? ""}\n\`\`\`\n`;
      else if (el.tag === "img" && el.image_key) resources.push({ key: el.image_key, type: "image", name: `${el.image_key}.png` });
      else if (el.tag === "media" && el.file_key) resources.push({ key: el.file_key, type: "file", name: `${el.file_key}.mp4` });
      else if (el.tag === "emotion") line += `:${el.emoji_type ?? ""}:`;
    }
    lines.push(line);
  }
  return withMentions(lines.join("\n"), mentions, botOpenId);
}

/** What the model reads for one Feishu message, and the files to fetch for it. */
export function inboundContent(messageType: string, content: string, mentions: Mention[], botOpenId: string): InboundContent {
  const c = parse(content);
  const resources: Resource[] = [];
  switch (messageType) {
    case "text":
      return { text: withMentions(String(c.text ?? ""), mentions, botOpenId), resources };
    case "post":
      return { text: postText(c, mentions, botOpenId, resources), resources };
    case "image":
      if (c.image_key) resources.push({ key: c.image_key, type: "image", name: `${c.image_key}.png` });
      return { text: "", resources };
    case "file":
      if (c.file_key) resources.push({ key: c.file_key, type: "file", name: c.file_name || c.file_key });
      return { text: "", resources };
    case "media":
      if (c.file_key) resources.push({ key: c.file_key, type: "file", name: c.file_name || `${c.file_key}.mp4` });
      return { text: "", resources };
    case "audio": {
      // Feishu gives no transcript: the core says so to the model, or turns the audio into text ([transcription]).
      const seconds = c.duration ? Math.round(Number(c.duration) / 1000) : undefined;
      if (c.file_key) resources.push({ key: c.file_key, type: "file", name: `voice-${c.file_key}.opus`, voice: seconds ? { seconds } : {} });
      return { text: "", resources };
    }
    default:
      return { text: `[a Feishu ${messageType} message, which SCV cannot read]`, resources };
  }
}

/** Names a downloaded image by its content, since Feishu does not say. */
export function imageName(key: string, bytes: Uint8Array): string {
  const b = bytes;
  const ext =
    b[0] === 0x89 && b[1] === 0x50 ? "png" : b[0] === 0xff && b[1] === 0xd8 ? "jpg" : b[0] === 0x47 && b[1] === 0x49 ? "gif" : b[8] === 0x57 && b[9] === 0x45 ? "webp" : "png";
  return `${key}.${ext}`;
}

export interface OutboundPart {
  msgType: "text" | "post";
  content: unknown;
  /** The part's markdown, sent as plain text if Feishu refuses the post. */
  text: string;
}

/** Longer replies are split at paragraph boundaries into parts of at most this many characters. */
const MAX_PART_CHARS = 8000;
const MARKDOWN = /(^|\n)\s*(#{1,6}\s|[-*+]\s|\d+\.\s|>|```)|\*\*[^*]+\*\*|`[^`]+`|\[[^\]]+\]\([^)]+\)|~~[^~]+~~/;

function chunks(text: string): string[] {
  if (text.length <= MAX_PART_CHARS) return [text];
  const out: string[] = [];
  let current = "";
  for (const para of text.split(/\n\n/)) {
    if (current && current.length + para.length + 2 > MAX_PART_CHARS) {
      out.push(current);
      current = "";
    }
    current = current ? `${current}\n\n${para}` : para;
    while (current.length > MAX_PART_CHARS) {
      out.push(current.slice(0, MAX_PART_CHARS));
      current = current.slice(MAX_PART_CHARS);
    }
  }
  if (current) out.push(current);
  return out;
}

/** A `post` body: fenced code as code blocks, everything else as markdown (`md`) paragraphs Feishu renders. */
function post(text: string): unknown {
  const content: unknown[][] = [];
  const pieces = text.split(/^```([\w+-]*)[^\n]*\n([\s\S]*?)^```[ \t]*$/m);
  for (let i = 0; i < pieces.length; i += 3) {
    const prose = pieces[i]!.trim();
    if (prose) content.push([{ tag: "md", text: prose }]);
    if (i + 2 < pieces.length) content.push([{ tag: "code_block", language: (pieces[i + 1] || "plain_text").toUpperCase(), text: pieces[i + 2]!.replace(/\n$/, "") }]);
  }
  return { zh_cn: { title: "", content } };
}

/** The model's reply as Feishu message parts: plain `text` when it has no markdown, otherwise `post`. */
export function outboundParts(text: string): OutboundPart[] {
  if (!text.trim()) return [];
  return chunks(text).map((t) => (MARKDOWN.test(t) ? { msgType: "post", content: post(t), text: t } : { msgType: "text", content: { text: t }, text: t }));
}
