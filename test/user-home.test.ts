import { expect, test } from "bun:test";
import { homedir } from "node:os";
import { userHome } from "../src/user-home";

test("the home is $HOME when set, else the system's record of it", () => {
  expect(userHome({ HOME: "/home/someone" })).toBe("/home/someone");
  expect(userHome({})).toBe(homedir());
  expect(userHome({ HOME: "" })).toBe(homedir());
});
