import { expect, test } from "bun:test";
import { throttle } from "../src/throttle";

test("the first send is at once, the rest at most once per interval, and the latest state always arrives", async () => {
  let state = 0;
  const sent: number[] = [];
  const t = throttle(() => sent.push(state), 80);
  state = 1;
  t.poke();
  expect(sent).toEqual([1]); // at once
  for (state = 2; state <= 5; state++) t.poke();
  state = 5;
  expect(sent).toEqual([1]); // held back within the interval
  await Bun.sleep(160);
  expect(sent).toEqual([1, 5]); // one send for the burst, with the latest state
  t.stop();
});

test("stop drops a send still waiting", async () => {
  const sent: string[] = [];
  const t = throttle(() => sent.push("x"), 50);
  t.poke();
  t.poke();
  t.stop();
  t.poke();
  await Bun.sleep(100);
  expect(sent).toEqual(["x"]);
});
