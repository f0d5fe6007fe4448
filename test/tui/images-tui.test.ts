// An image path pasted into the interactive prompt goes to the model as an image (tmux, compiled binary).
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, removeFakeHomes, requireBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text } from "../fake/model-server";
import { makePng } from "../fake/png";
import { openTerminal, type Terminal } from "../fake/tmux";
import { needs } from "../fake/needs";

setDefaultTimeout(40_000);

let fake: FakeModel | undefined;
let pane: Terminal | undefined;
afterEach(async () => {
  pane?.close();
  await fake?.close();
  fake = undefined;
  removeFakeHomes();
});

test.skipIf(!needs("tmux"))("a pasted image path is attached for a model that takes images; otherwise the prompt goes alone with the reason", async () => {
  fake = await startFakeModel();
  const h = fakeHome(fake.url, "images = true\n");
  const png = makePng(5, 5);
  writeFileSync(join(h.workspace, "screen shot.png"), png);
  pane = openTerminal([requireBinary()], { env: h.env, cwd: h.workspace });
  await pane.waitFor(/s-[0-9a-f]{8}/);
  fake.queue(text("A tiny gradient."));
  pane.type(`what is in ${h.workspace}/screen\\ shot.png ?`);
  pane.keys("Enter");
  await pane.waitFor("A tiny gradient.");
  expect(pane.screen()).toContain("attached image: screen shot.png");
  const user = fake.requests.at(-1)!.body.input.at(-1);
  expect(user.content[1]).toEqual({ type: "input_image", image_url: `data:image/png;base64,${png.toString("base64")}`, detail: "auto" });
  pane.close();

  const off = fakeHome(fake.url);
  writeFileSync(join(off.workspace, "a.png"), png);
  pane = openTerminal([requireBinary()], { env: off.env, cwd: off.workspace });
  await pane.waitFor(/s-[0-9a-f]{8}/);
  fake.queue(text("No picture here."));
  pane.type("describe a.png");
  pane.keys("Enter");
  await pane.waitFor("No picture here.");
  expect(pane.screen()).toContain('image not attached: cannot attach images: model "fake-model" is not one SCV knows to take images');
  expect(fake.requests.at(-1)!.body.input.at(-1).content).toEqual([{ type: "input_text", text: "describe a.png" }]);
});
