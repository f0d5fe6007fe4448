// [notify]'s quiet hours in the owner's time zone (issue 54): inside them a chat notice waits until they end.
import { expect, test } from "bun:test";
import { ChannelsConfig, type Config, NotifyConfig, SchedulesConfig } from "../../src/config/schema";
import { ownerPlaces, quietUntil } from "../../src/channels/notify";
import type { ChannelHost } from "../../src/channels/core/host";

const config = (notify: Record<string, unknown>) =>
  ({ channels: ChannelsConfig.parse({}), schedules: SchedulesConfig.parse({ time_zone: "Europe/Berlin" }), notify: NotifyConfig.parse(notify) }) as Config;

test("quiet hours over midnight end at their end time in the owner's zone; outside them nothing waits", () => {
  const c = config({ quiet_hours: "22:00-07:00" });
  // 23:30 in Berlin (UTC+1 in December) is 22:30 UTC; the hours end at 07:00 Berlin, 06:00 UTC the next day.
  expect(quietUntil(c, Date.parse("2026-12-06T22:30:00Z"))).toBe(Date.parse("2026-12-07T06:00:00Z"));
  expect(quietUntil(c, Date.parse("2026-12-07T05:59:00Z"))).toBe(Date.parse("2026-12-07T06:00:00Z"));
  expect(quietUntil(c, Date.parse("2026-12-07T06:00:00Z"))).toBeUndefined();
  expect(quietUntil(c, Date.parse("2026-12-07T12:00:00Z"))).toBeUndefined();
  expect(quietUntil(config({ quiet_hours: "13:00-14:00" }), Date.parse("2026-12-07T12:15:00Z"))).toBe(Date.parse("2026-12-07T13:00:00Z"));
  expect(quietUntil(config({}), Date.parse("2026-12-06T22:30:00Z"))).toBeUndefined();
});

test("the owner's places: the listed order, only owners' conversations; by default every channel and the web page", () => {
  const channels = [
    { key: "dir/default", ownerConversation: "owner-1", state: { state: "connected" } },
    { key: "telegram/default", ownerConversation: "42", state: { state: "connected" } },
    { key: "wechat/default", ownerConversation: "", state: { state: "connected" } },
  ];
  const host = { ownerChannels: () => channels } as unknown as ChannelHost;
  expect(ownerPlaces(config({}), host)).toEqual({ chats: [channels[0], channels[1]] as never, web: true, desktop: false });
  expect(ownerPlaces(config({ to: ["telegram", "desktop", "dir"] }), host)).toEqual({ chats: [channels[1], channels[0]] as never, web: false, desktop: true });
  expect(ownerPlaces(config({ to: ["telegram:7", "wechat", "web"] }), host)).toEqual({ chats: [], web: true, desktop: false });
});
